"""``manage.py loadtest_ws``: many websocket clients on one session of running servers.

For each client count N: create a session (one question, not yet run), open N
concurrent clients on ``ws/sessions/<id>/?after=0`` as a workspace member, spread
round-robin over the ``--url`` servers (repeat ``--url`` for several daphne processes on
one database), run the turn in this process (its events reach the servers through each
one's database tail or Redis), and check that every client received every stored event
of the session, each once and in seq order. Prints one line per N: connect time and
failures, events per client, clients complete, events lost and duplicated, time until
the median and the last client had the last event; ``--json`` prints one JSON object
per N instead, with each client's server and received seqs.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.test import Client
from websockets.asyncio.client import ClientConnection, connect

from ciq.selectors import workspace_get_by_name
from sessions.models import SessionEvent
from sessions.pipeline import turn_run
from sessions.services import session_create


class Listener:
    """One client: its server, the seqs it received in order, and when it got the last one."""

    def __init__(self, server: str, socket: ClientConnection):
        self.server = server
        self.socket = socket
        self.seqs: list[int] = []
        self.received_at = 0.0
        self.closed = False

    @classmethod
    async def open(cls, server: str, url: str, headers: dict, origin: str) -> Listener:
        return cls(server, await connect(url, additional_headers=headers, origin=origin,
                                         open_timeout=None, max_queue=None))

    async def listen(self) -> None:
        """Receive event messages until cancelled or the server closes the socket."""
        try:
            async for raw in self.socket:
                message = json.loads(raw)
                if "seq" in message:
                    self.seqs.append(message["seq"])
                    self.received_at = time.perf_counter()
        finally:
            self.closed = True


def delivery_check(stored: list[int], received: list[list[int]]) -> dict:
    """Compare each client's received seqs with the stored ones (both lists of ints).

    Returns ``{"complete", "lost", "duplicated", "out_of_order"}``: clients that got
    exactly ``stored``; stored events a client never got, summed over clients; events a
    client got more than once, summed; clients whose seqs were not increasing.
    """
    expected = set(stored)
    return {
        "complete": sum(1 for seqs in received if seqs == stored),
        "lost": sum(len(expected - set(seqs)) for seqs in received),
        "duplicated": sum(len(seqs) - len(set(seqs)) for seqs in received),
        "out_of_order": sum(1 for seqs in received if seqs != sorted(seqs)),
    }


class Command(BaseCommand):
    help = "Open N concurrent websocket clients on one session of running servers and check delivery."

    def add_arguments(self, parser):
        parser.add_argument("--url", action="append", dest="urls",
                            help="A server (http://host:port); repeat for several, clients are "
                                 "spread round-robin. Default http://127.0.0.1:8000.")
        parser.add_argument("--clients", default="50,100,200",
                            help="Comma-separated client counts, one round each.")
        parser.add_argument("--workspace", default="Demo")
        parser.add_argument("--user", default="demo")
        parser.add_argument("--question",
                            default="What permits are needed to build or replace a dock in Rivergrove?")
        parser.add_argument("--timeout", type=float, default=60.0, help="Seconds per round.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="One JSON object per round.")

    def handle(self, *args, urls, clients, workspace, user, question, timeout, as_json, **options):
        try:
            space = workspace_get_by_name(name=workspace)
            member = get_user_model().objects.get(username=user, workspaces=space)
        except Exception as exc:
            raise CommandError(f"No member {user!r} of workspace {workspace!r}: {exc}") from exc
        browser = Client()
        browser.force_login(member)
        headers = {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}
        servers = [urlsplit(url) for url in (urls or ["http://127.0.0.1:8000"])]
        for n in [int(c) for c in clients.split(",") if c.strip()]:
            turn = session_create(workspace=space, user=member, question=question)
            result = asyncio.run(self.round(servers, headers, n, turn, timeout))
            self.stdout.write(json.dumps(result) if as_json else self.line(result))

    async def round(self, servers, headers: dict, n: int, turn, timeout: float) -> dict:
        started = time.perf_counter()
        path = f"/ws/sessions/{turn.session_id}/?after=0"
        opened = await asyncio.gather(*(
            Listener.open(s.netloc, f"ws://{s.netloc}{path}", headers, f"{s.scheme}://{s.netloc}")
            for s in (servers[i % len(servers)] for i in range(n))
        ), return_exceptions=True)
        connected = time.perf_counter() - started
        clients = [c for c in opened if isinstance(c, Listener)]
        failures = Counter(type(c).__name__ for c in opened if not isinstance(c, Listener))
        tasks = [asyncio.create_task(c.listen()) for c in clients]
        # Every client has its replay (session_created) before the run starts.
        deadline = time.monotonic() + timeout
        while any(not c.seqs and not c.closed for c in clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        run_started = time.perf_counter()
        # The run ends with generation_complete (or error) and then its turn_sealed: wait
        # for the stored log's last seq rather than for one event type.
        ran = asyncio.create_task(asyncio.to_thread(turn_run, turn))
        await asyncio.wait([ran], timeout=timeout)
        run_seconds = time.perf_counter() - run_started
        stored = await asyncio.to_thread(
            lambda: list(SessionEvent.objects.filter(session_id=turn.session_id)
                         .order_by("seq").values_list("seq", flat=True)))
        last_seq = stored[-1] if stored else 0
        deadline = time.monotonic() + timeout
        while (time.monotonic() < deadline
               and any(not c.closed and (not c.seqs or c.seqs[-1] < last_seq) for c in clients)):
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        finished = sorted(c.received_at - run_started for c in clients
                          if c.seqs and c.seqs[-1] >= last_seq)
        await asyncio.gather(*(c.socket.close() for c in clients), return_exceptions=True)
        return {
            "clients": n, "connected": len(clients), "connect_failures": dict(failures),
            "connect_seconds": round(connected, 3),
            "servers": dict(Counter(c.server for c in clients)),
            "stored": stored,
            **delivery_check(stored, [c.seqs for c in clients]),
            "run_seconds": round(run_seconds, 3),
            "median_seconds": round(finished[len(finished) // 2], 3) if finished else None,
            "last_seconds": round(finished[-1], 3) if finished else None,
            "received": [{"server": c.server, "seqs": c.seqs} for c in clients],
        }

    @staticmethod
    def line(r: dict) -> str:
        failed = ", ".join(f"{k} {v}" for k, v in r["connect_failures"].items()) or "none"
        def seconds(value):
            return "n/a" if value is None else f"{value:.2f} s"
        return (f"clients {r['clients']} over {len(r['servers'])} server(s): {r['connected']} connected in "
                f"{r['connect_seconds']:.2f} s (failed: {failed}); {len(r['stored'])} events each; "
                f"{r['complete']}/{r['clients']} complete; {r['lost']} events lost, "
                f"{r['duplicated']} duplicated, {r['out_of_order']} clients out of order; the last "
                f"event reached the median client {seconds(r['median_seconds'])} and the last client "
                f"{seconds(r['last_seconds'])} after the run started (the run took {r['run_seconds']:.2f} s)")
