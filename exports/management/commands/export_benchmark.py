"""``python manage.py export_benchmark SESSION_ID [--format ...] [--repeat N]``: how long
each export format takes for one session (median and p95 wall-clock ms, median CPU ms
of this process, file size), with the session's size beside it. The CPU column is the
steadier figure on a shared machine: the renderers are single-threaded, so on an idle
machine wall clock ≈ CPU. Renders only: nothing is recorded or written."""

import statistics
import time

from django.core.management.base import BaseCommand, CommandError
from rich.console import Console
from rich.table import Table

from exports.services import FORMATS, session_render
from sessions.models import ResearchSession
from sessions.selectors import turn_ledger


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile (0–1) of ``values`` by nearest rank (p95 of 10 runs is the
    largest)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


class Command(BaseCommand):
    help = "Time the exports of a research session: median and p95 ms per format."

    def add_arguments(self, parser):
        parser.add_argument("session", type=int, help="Research session id.")
        parser.add_argument("--format", action="append", choices=FORMATS, dest="formats",
                            help="Format to time (repeatable; default: all four).")
        parser.add_argument("--repeat", type=int, default=7, help="Timed runs per format (default 7).")
        parser.add_argument("--warmup", type=int, default=1,
                            help="Untimed runs first (imports, font loading; default 1).")

    def handle(self, *args, **options):
        if options["repeat"] < 1 or options["warmup"] < 0:
            raise CommandError("--repeat must be at least 1 and --warmup at least 0.")
        session = ResearchSession.objects.filter(pk=options["session"]).first()
        if session is None:
            raise CommandError(f"No research session {options['session']}.")
        turns = list(session.turns.all())
        claims = sum(turn_ledger(turn=t).count() for t in turns)
        table = Table(title=f"Session {session.pk}: {len(turns)} turn(s), {claims} claim(s); "
                            f"{options['repeat']} run(s) per format after {options['warmup']} warm-up")
        for column in ("format", "median ms", "p95 ms", "median cpu ms", "bytes"):
            table.add_column(column, justify="left" if column == "format" else "right")
        for fmt in options["formats"] or FORMATS:
            for _ in range(options["warmup"]):
                session_render(session=session, fmt=fmt)
            times, cpu, size = [], [], 0
            for _ in range(options["repeat"]):
                started, started_cpu = time.perf_counter(), time.process_time()
                content, _data = session_render(session=session, fmt=fmt)
                times.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - started_cpu) * 1000)
                size = len(content)
            table.add_row(fmt, f"{statistics.median(times):,.0f}", f"{percentile(times, 0.95):,.0f}",
                          f"{statistics.median(cpu):,.0f}", f"{size:,}")
        Console(file=self.stdout, width=None if self.stdout.isatty() else 120).print(table)
