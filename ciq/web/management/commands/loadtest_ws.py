"""``manage.py loadtest_ws``: many websocket clients on one session of a running server.

For each client count N: create a session (one question, not yet run), open N
concurrent clients on ``ws/sessions/<id>/?after=0`` as a workspace member, run the turn
in this process (its events reach the server through the database tail or Redis), and
check that every client received every stored event of the session, each once and in
order. Prints one line per N: connect time, events per client, clients complete,
events lost, time until the last client had the last event.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from urllib.parse import urlsplit

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.test import Client
from websockets.asyncio.client import ClientConnection, connect

from ciq.selectors import workspace_get_by_name
from sessions.models import SessionEvent
from sessions.pipeline import turn_run
from sessions.services import session_create

END_TYPES = {"generation_complete", "error"}


class Listener:
    """One client: the seqs it received, in order, and when it saw the run's end."""

    def __init__(self, socket: ClientConnection):
        self.socket = socket
        self.seqs: list[int] = []
        self.done_at: float | None = None

    @classmethod
    async def open(cls, url: str, headers: dict, origin: str) -> Listener:
        return cls(await connect(url, additional_headers=headers, origin=origin,
                                 open_timeout=None, max_queue=None))

    async def listen(self) -> None:
        """Receive until the run's last event (``generation_complete`` or ``error``)."""
        while True:
            message = json.loads(await self.socket.recv())
            if "seq" in message:
                self.seqs.append(message["seq"])
                if message["type"] in END_TYPES:
                    self.done_at = time.perf_counter()
                    return


class Command(BaseCommand):
    help = "Open N concurrent websocket clients on one session of a running server and check delivery."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--clients", default="50,100,200",
                            help="Comma-separated client counts, one round each.")
        parser.add_argument("--workspace", default="Demo")
        parser.add_argument("--user", default="demo")
        parser.add_argument("--question",
                            default="What permits are needed to build or replace a dock in Rivergrove?")
        parser.add_argument("--timeout", type=float, default=60.0, help="Seconds per round.")

    def handle(self, *args, url, clients, workspace, user, question, timeout, **options):
        try:
            space = workspace_get_by_name(name=workspace)
            member = get_user_model().objects.get(username=user, workspaces=space)
        except Exception as exc:
            raise CommandError(f"No member {user!r} of workspace {workspace!r}: {exc}") from exc
        browser = Client()
        browser.force_login(member)
        parts = urlsplit(url)
        headers = {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}
        origin = f"{parts.scheme}://{parts.netloc}"
        for n in [int(c) for c in clients.split(",") if c.strip()]:
            turn = session_create(workspace=space, user=member, question=question)
            ws_url = f"ws://{parts.netloc}/ws/sessions/{turn.session_id}/?after=0"
            line = asyncio.run(self.round(ws_url, headers, origin, n, turn, timeout))
            self.stdout.write(line)

    async def round(self, ws_url: str, headers: dict, origin: str, n: int, turn,
                    timeout: float) -> str:
        started = time.perf_counter()
        clients = await asyncio.gather(*(Listener.open(ws_url, headers, origin) for _ in range(n)))
        connected = time.perf_counter() - started
        tasks = [asyncio.create_task(c.listen()) for c in clients]
        await asyncio.sleep(0.5)  # every client has its replay (session_created)
        run_started = time.perf_counter()
        threading.Thread(target=turn_run, args=(turn,), daemon=True).start()
        await asyncio.wait(tasks, timeout=timeout)
        for task in tasks:
            task.cancel()
        stored = await asyncio.to_thread(
            lambda: list(SessionEvent.objects.filter(session_id=turn.session_id)
                         .order_by("seq").values_list("seq", flat=True)))
        complete = sum(1 for c in clients if c.seqs == stored)
        lost = sum(len(set(stored) - set(c.seqs)) for c in clients)
        finished = [c.done_at for c in clients if c.done_at is not None]
        finished.sort()
        last = (finished[-1] - run_started) if finished else float("nan")
        median = (finished[len(finished) // 2] - run_started) if finished else float("nan")
        await asyncio.gather(*(c.socket.close() for c in clients))
        return (f"clients {n}: connected in {connected:.2f} s; {len(stored)} events each; "
                f"{complete}/{n} complete; {lost} events lost; the last event reached the median "
                f"client {median:.2f} s and the last client {last:.2f} s after the run started")
