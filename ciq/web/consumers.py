"""The session websocket: ``ws/sessions/<id>/?after=<seq>`` (DESIGN.md §4).

On connect: the stored events after ``after`` (replay), then live ones, each once and in
seq order. Close codes (after the handshake, so browsers see them): 4401 not logged in,
4404 no such session or not a member of its workspace (the two look the same), 4403
access ended while the socket was open (logged out, deactivated, password changed or
removed from the workspace).
A client may send ``{"type": "ask", "question": "..."}`` to start a follow-up turn;
the reply is ``{"type": "ask_accepted", "turn", "question"}`` or
``{"type": "ask_rejected", "errors": {field: [messages]}}`` (replies carry no seq); a
viewer's ask is rejected under ``role`` (``ciq.permissions``) and the socket stays open.

Access is checked again before every incoming message is acted on and before events
are forwarded: always for a message, an event of a turn later than the last checked
one, or once ``WS_ACCESS_RECHECK_SECONDS`` have passed since the last check (one query
batch per check, not one per event), so a removed member never gets the next turn.
"""

from __future__ import annotations

import time
from importlib import import_module

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Max
from django.http import Http404
from django.utils.crypto import constant_time_compare

from ciq.selectors import workspace_list_for_user
from ciq.web.tail import BATCH, SessionTail, events_after
from sessions.events import session_group
from sessions.selectors import session_get_for_user
from sessions.services import followup_start

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
UNKNOWN_MESSAGE = 'Unknown message: send {"type": "ask", "question": "..."}.'


def _session_open(user, session_id: int):
    """``(session, latest turn index)`` if ``user`` may see the session, else ``None``
    (stalled runs are ended by ``manage.py recover``, not here)."""
    try:
        session = session_get_for_user(user=user, session_id=session_id)
    except Http404:
        return None
    return session, session.turns.aggregate(latest=Max("index"))["latest"] or 0


def socket_access_holds(*, user_id: int, session_key: str | None, workspace_id: int) -> bool:
    """True while the socket's login still stands and its user may read the workspace.

    The login stands when the login session ``session_key`` still exists and names
    ``user_id`` (logout flushes it), its password hash matches (a password change
    ends it, as ``django.contrib.auth.get_user`` does for pages) and the user is active;
    then the user must still be a member of ``workspace_id``. Two or three queries.
    """
    if not session_key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    if str(store.get(SESSION_KEY)) != str(user_id):
        return False
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return False
    stored_hash = store.get(HASH_SESSION_KEY) or ""
    if not constant_time_compare(stored_hash, user.get_session_auth_hash()):
        return False
    return workspace_list_for_user(user=user).filter(pk=workspace_id).exists()


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
        opened = await database_sync_to_async(_session_open)(user, session_id)
        if opened is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.session, self.checked_turn = opened
        self.checked_at = time.monotonic()
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
            self.group = None
        if self.tail is not None:
            self.tail.unwatch()
            self.tail = None

    async def access_holds(self, *, messages: list[dict] = (), force: bool = False) -> bool:
        """Re-check login and membership when ``force``d, when ``messages`` start a turn
        later than the last checked one, or when the last check is older than
        ``WS_ACCESS_RECHECK_SECONDS``; on failure close with 4403 and stop streaming."""
        if self.session is None:
            return False
        turn = max((m["turn"] for m in messages if isinstance(m.get("turn"), int)), default=0)
        stale = time.monotonic() - self.checked_at >= settings.WS_ACCESS_RECHECK_SECONDS
        if not (force or stale or turn > self.checked_turn):
            return True
        session = self.scope.get("session")
        holds = await database_sync_to_async(socket_access_holds)(
            user_id=self.scope["user"].pk,
            session_key=getattr(session, "session_key", None),
            workspace_id=self.session.workspace_id,
        )
        if not holds:
            self.session = None  # nothing more is sent or accepted on this socket
            await self.disconnect(CLOSE_FORBIDDEN)
            await self.close(code=CLOSE_FORBIDDEN)
            return False
        self.checked_at = time.monotonic()
        self.checked_turn = max(self.checked_turn, turn)
        return True

    async def send_events(self, messages: list[dict]) -> bool:
        """Send ``messages`` (in seq order, none already sent) once access holds."""
        if not messages or not await self.access_holds(messages=messages):
            return False
        for message in messages:
            await self.send_json(message)
            self.last_seq = message["seq"]
        return True

    async def catch_up(self) -> None:
        """Send every stored event after ``last_seq``, in order."""
        while self.session is not None:
            messages = await database_sync_to_async(events_after)(self.session.pk, self.last_seq)
            if not await self.send_events(messages) or len(messages) < BATCH:
                return

    async def session_event(self, event: dict) -> None:
        """A group message ``{"type": "session.event", "message": <event>}``: send it
        unless already sent; a gap (a missed message) is filled from the log first."""
        if self.session is None:
            return
        seq = event["message"]["seq"]
        if seq <= self.last_seq:
            return
        if seq == self.last_seq + 1:
            await self.send_events([event["message"]])
        else:
            await self.catch_up()

    async def session_events(self, event: dict) -> None:
        """A batch from this process's tail ``{"type": "session.events", "messages": [...]}``."""
        if self.session is None:
            return
        fresh = [m for m in event["messages"] if m["seq"] > self.last_seq]
        if fresh and fresh[0]["seq"] != self.last_seq + 1:
            await self.catch_up()
        elif fresh:
            await self.send_events(fresh)

    async def receive_json(self, content, **kwargs) -> None:
        """``{"type": "ask", "question": str}``: start a follow-up turn."""
        if not await self.access_holds(force=True):
            return
        if not isinstance(content, dict) or content.get("type") != "ask":
            await self.send_json({"type": "ask_rejected", "errors": {"type": [UNKNOWN_MESSAGE]}})
            return
        question = content.get("question")
        try:
            turn = await database_sync_to_async(followup_start)(
                session=self.session, question=question if isinstance(question, str) else "",
                user=self.scope["user"],
            )
        except ValidationError as exc:
            await self.send_json({"type": "ask_rejected", "errors": exc.message_dict})
            return
        except PermissionDenied as exc:  # a viewer may watch, not ask
            await self.send_json({"type": "ask_rejected", "errors": {"role": [str(exc)]}})
            return
        await self.send_json({"type": "ask_accepted", "turn": turn.index, "question": turn.question})
