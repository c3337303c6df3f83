"""The session websocket: ``ws/sessions/<id>/?after=<seq>`` (DESIGN.md §4).

On connect: the stored events after ``after`` (replay), then live ones, each once and in
seq order. Close codes (after the handshake, so browsers see them): 4401 not logged in,
4404 no such session or not a member of its workspace (the two look the same).
A client may send ``{"type": "ask", "question": "..."}`` to start a follow-up turn;
the reply is ``{"type": "ask_accepted", "turn", "question"}`` or
``{"type": "ask_rejected", "errors": {field: [messages]}}`` (replies carry no seq).
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.core.exceptions import ValidationError
from django.http import Http404

from sessions.events import session_group
from sessions.recovery import turns_stalled_fail
from sessions.selectors import session_get_for_user
from sessions.services import followup_start
from web.tail import BATCH, SessionTail, events_after

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
UNKNOWN_MESSAGE = 'Unknown message: send {"type": "ask", "question": "..."}.'


def _session_open(user, session_id: int):
    """The session if ``user`` may see it (after ending stalled turns), else ``None``."""
    try:
        session = session_get_for_user(user=user, session_id=session_id)
    except Http404:
        return None
    turns_stalled_fail(session=session)
    return session


def _after(query_string: bytes) -> int:
    from urllib.parse import parse_qs

    values = parse_qs(query_string.decode("latin-1")).get("after", ["0"])
    try:
        return max(int(values[0]), 0)
    except ValueError:
        return 0


class SessionConsumer(AsyncJsonWebsocketConsumer):
    """Streams one session's events to one client (see the module docstring)."""

    async def connect(self) -> None:
        self.session = None
        self.tail = None
        self.group = None
        # Accept first: a close before the handshake reaches browsers as a bare HTTP 403
        # without the code, and the page needs the code to stop reconnecting.
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        session_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        self.session = await database_sync_to_async(_session_open)(user, session_id)
        if self.session is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.last_seq = _after(self.scope.get("query_string", b""))
        self.group = session_group(session_id)
        # Join before replaying: an event stored meanwhile arrives as a group message
        # after the replay and is dropped or gap-filled by seq.
        await self.channel_layer.group_add(self.group, self.channel_name)
        if SessionTail.needed():
            self.tail = await SessionTail.watch(session_id)
        await self.catch_up()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if self.tail is not None:
            self.tail.unwatch()
            self.tail = None

    async def catch_up(self) -> None:
        """Send every stored event after ``last_seq``, in order."""
        while True:
            messages = await database_sync_to_async(events_after)(self.session.pk, self.last_seq)
            for message in messages:
                await self.send_json(message)
                self.last_seq = message["seq"]
            if len(messages) < BATCH:
                return

    async def session_event(self, event: dict) -> None:
        """A group message ``{"type": "session.event", "message": <event>}``: send it
        unless already sent; a gap (a missed message) is filled from the log first."""
        seq = event["message"]["seq"]
        if seq <= self.last_seq:
            return
        if seq == self.last_seq + 1:
            await self.send_json(event["message"])
            self.last_seq = seq
        else:
            await self.catch_up()

    async def session_events(self, event: dict) -> None:
        """A batch from this process's tail ``{"type": "session.events", "messages": [...]}``."""
        for message in event["messages"]:
            await self.session_event({"message": message})

    async def receive_json(self, content, **kwargs) -> None:
        """``{"type": "ask", "question": str}``: start a follow-up turn."""
        if self.session is None:
            return
        if not isinstance(content, dict) or content.get("type") != "ask":
            await self.send_json({"type": "ask_rejected", "errors": {"type": [UNKNOWN_MESSAGE]}})
            return
        question = content.get("question")
        try:
            turn = await database_sync_to_async(followup_start)(
                session=self.session, question=question if isinstance(question, str) else ""
            )
        except ValidationError as exc:
            await self.send_json({"type": "ask_rejected", "errors": exc.message_dict})
            return
        await self.send_json({"type": "ask_accepted", "turn": turn.index, "question": turn.question})
