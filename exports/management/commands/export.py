"""``python manage.py export SESSION_ID [--format md|pdf|json|docx ...] [--out DIR]``:
write a session's exports to files and print what was written, with timings."""

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from rich.console import Console
from rich.table import Table

from exports.services import FORMATS, session_export
from sessions.models import ResearchSession
from sessions.selectors import turn_ledger


class Command(BaseCommand):
    help = "Export a research session (all turns) as Markdown, PDF, JSON and/or DOCX files."

    def add_arguments(self, parser):
        parser.add_argument("session", type=int, help="Research session id.")
        parser.add_argument("--format", action="append", choices=FORMATS, dest="formats",
                            help="Format to write (repeatable; default: all four).")
        parser.add_argument("--out", default=".", help="Directory for the files (default: here).")

    def handle(self, *args, **options):
        session = ResearchSession.objects.select_related("workspace", "user").filter(
            pk=options["session"]).first()
        if session is None:
            raise CommandError(f"No research session {options['session']}.")
        out = Path(options["out"])
        if not out.is_dir():
            raise CommandError(f"No directory {out}.")
        claims = sum(turn_ledger(turn=t).count() for t in session.turns.all())
        table = Table(title=f"Session {session.pk}: {session.turns.count()} turn(s), {claims} claim(s)")
        for column, justify in (("format", "left"), ("ms", "right"), ("bytes", "right"),
                                ("sha256", "left"), ("file", "left")):
            table.add_column(column, justify=justify)
        for fmt in options["formats"] or FORMATS:
            started = time.perf_counter()
            result = session_export(session=session, fmt=fmt)
            ms = (time.perf_counter() - started) * 1000
            path = out / result.filename
            path.write_bytes(result.content)
            table.add_row(fmt, f"{ms:,.0f}", f"{len(result.content):,}", result.record.sha256[:16] + "…",
                          str(path))
        width = None if self.stdout.isatty() else 120
        Console(file=self.stdout, width=width).print(table)
