"""``manage.py loadtest_api``: many sessions at once through the REST API of running servers.

For each concurrency C (``--concurrency 1 5 20 50``): C clients each ``POST
/api/v1/sessions/`` a question at the same moment (questions taken in turn from
:data:`QUESTIONS`), then poll their turn's ``…/turns/1/state/`` every ``--poll`` seconds
until it has ended (after ``--warmup`` sessions that are not counted). The servers and
the ``db_worker`` processes are whatever runs at ``--url`` (``bin/loadtest-api`` starts
daphne and N workers on SQLite or, under ``bin/with-postgres``, PostgreSQL). Prints one
row per C: turns completed and failed, HTTP errors (any non-2xx, "database is locked"
among them), completed turns per minute of wall time, and the p50 / p95 time from the
POST to the end of the turn (s), with the machine's core count; ``--json`` prints one
JSON object per C instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, field

import httpx
from django.core.management.base import BaseCommand, CommandError
from rich.console import Console
from rich.table import Table

from ciq.metrics import latency_summary

# Natural questions on the bundled samples (Rivergrove, Ray County, CFR, ORS), as firm
# staff type them: the load is the real pipeline, retrieval to verdict.
QUESTIONS = [
    "How late is the Rivergrove park open at night?",
    "How far can a dock stick out into the river in Rivergrove?",
    "What's the fine for cutting down a tree without a permit in Rivergrove?",
    "How big can a sign be in Rivergrove?",
    "Do I need a permit for a garage sale in Ray County?",
    "How long does a debt collector have to wait before calling again?",
    "What does Rivergrove charge per month for sewer service?",
    "Can a dock be built on piers in Rivergrove?",
]


@dataclass
class Run:
    """One client's session: the HTTP status of its POST, the turn's final status, and
    seconds from the POST to the end of the turn (None when it did not end)."""

    post_status: int = 0
    final_status: str = ""
    seconds: float | None = None
    errors: list[str] = field(default_factory=list)


def summary(concurrency: int, runs: list[Run], wall_s: float) -> dict:
    """The row of one concurrency: counts, turns per minute of ``wall_s`` and p50 / p95 (s,
    ``ciq.metrics.latency_summary``, as every benchmark of CIQ)."""
    done = [r.seconds for r in runs if r.final_status == "completed" and r.seconds is not None]
    errors = [e for r in runs for e in r.errors]
    times = latency_summary([1000 * s for s in done])
    return {
        "concurrency": concurrency, "cores": os.cpu_count(), "completed": len(done),
        "failed": sum(1 for r in runs if r.final_status and r.final_status != "completed"),
        "unfinished": sum(1 for r in runs if not r.final_status),
        "http_errors": len(errors), "database_locked": sum("database is locked" in e for e in errors),
        "turns_per_minute": round(60 * len(done) / wall_s, 2) if wall_s else 0.0,
        "p50_s": round(times["median_ms"] / 1000, 2) if done else None,
        "p95_s": round(times["p95_ms"] / 1000, 2) if done else None,
        "wall_s": round(wall_s, 2), "runs": [asdict(r) for r in runs],
    }


async def one_session(client: httpx.AsyncClient, workspace: int, question: str, *, poll: float,
                      timeout: float) -> Run:
    """POST one session, then poll its first turn's state until it ends or ``timeout`` s."""
    run, started = Run(), time.perf_counter()
    response = await client.post("/api/v1/sessions/", json={"workspace": workspace, "query": question})
    run.post_status = response.status_code
    if response.status_code != 201:
        run.errors.append(f"POST {response.status_code}: {response.text[:200]}")
        return run
    state_url = f"/api/v1/sessions/{response.json()['id']}/turns/1/state/"
    while time.perf_counter() - started < timeout:
        await asyncio.sleep(poll)
        state = await client.get(state_url)
        if state.status_code != 200:
            run.errors.append(f"GET {state.status_code}: {state.text[:200]}")
            continue
        body = state.json()
        if body["ended"]:
            run.final_status, run.seconds = body["status"], time.perf_counter() - started
            break
    return run


async def load(url: str, token: str, workspace: int, concurrency: int, *, poll: float,
               timeout: float) -> dict:
    """Run ``concurrency`` sessions at once; the :func:`summary` row."""
    limits = httpx.Limits(max_connections=concurrency + 4)
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Token {token}"},
                                 timeout=httpx.Timeout(120), limits=limits) as client:
        started = time.perf_counter()
        runs = await asyncio.gather(*(
            one_session(client, workspace, QUESTIONS[i % len(QUESTIONS)], poll=poll, timeout=timeout)
            for i in range(concurrency)))
        return summary(concurrency, list(runs), time.perf_counter() - started)


def workspace_id(url: str, token: str, name: str) -> int:
    """The id of the caller's workspace called ``name`` (raises ``CommandError``)."""
    response = httpx.get(f"{url}/api/v1/workspaces/", headers={"Authorization": f"Token {token}"}, timeout=30)
    if response.status_code != 200:
        raise CommandError(f"{url}/api/v1/workspaces/ answered {response.status_code}: {response.text[:200]}")
    body = response.json()
    rows = body["results"] if isinstance(body, dict) else body
    match = next((w["id"] for w in rows if w["name"] == name), None)
    if match is None:
        raise CommandError(f"No workspace named {name!r} for this token.")
    return match


class Command(BaseCommand):
    help = "Many sessions at once through the REST API of running servers; prints throughput and latency."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--token", default=os.environ.get("CIQ_API_TOKEN", ""),
                            help="An API token (manage.py token_create USER); default $CIQ_API_TOKEN.")
        parser.add_argument("--workspace", default="Demo", help="The workspace's name.")
        parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 5, 20, 50])
        parser.add_argument("--poll", type=float, default=0.5, help="Seconds between state polls.")
        parser.add_argument("--timeout", type=float, default=900, help="Seconds a turn may take.")
        parser.add_argument("--warmup", type=int, default=1,
                            help="Sessions run first, at once, and not counted (models load, caches "
                                 "fill): at least the number of workers, so each has loaded its models.")
        parser.add_argument("--label", default="", help="Printed with each row (e.g. 'sqlite, 4 workers').")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, url, token, workspace, concurrency, poll, timeout, warmup, label, **options):
        if not token:
            raise CommandError("Give --token or set CIQ_API_TOKEN (manage.py token_create USER).")
        url = url.rstrip("/")
        ws = workspace_id(url, token, workspace)
        if warmup:
            asyncio.run(load(url, token, ws, warmup, poll=poll, timeout=timeout))
        rows = []
        for c in concurrency:
            row = {"label": label, **asyncio.run(load(url, token, ws, c, poll=poll, timeout=timeout))}
            rows.append(row)
            if options["json"]:
                self.stdout.write(json.dumps(row))
        if options["json"]:
            return
        table = Table(title=f"API load {label} ({os.cpu_count()} cores)".replace("  ", " "))
        for column in ("sessions at once", "completed", "failed", "unfinished", "HTTP errors",
                       "database locked", "turns / min", "p50 s", "p95 s", "wall s"):
            table.add_column(column, justify="right")
        for r in rows:
            table.add_row(*(str(r[k]) for k in ("concurrency", "completed", "failed", "unfinished",
                                                 "http_errors", "database_locked", "turns_per_minute",
                                                 "p50_s", "p95_s", "wall_s")))
        console = Console(file=self.stdout, width=140)
        console.print(table)
        seen = Counter(e for r in rows for run in r["runs"] for e in run["errors"])
        for error, n in seen.most_common(5):  # what went wrong, most frequent first
            console.print(f"{n} × {error}", markup=False)
