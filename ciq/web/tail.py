"""Event tailing for the in-memory channel layer.

With the default in-memory layer a worker in another process (``db_worker``) cannot
reach this process's consumers, so each daphne process runs one poller per watched
session: it reads the session's new ``SessionEvent`` rows and sends them to the
session's group in this process's layer (``session.events``: a batch of messages). Consumers
drop duplicates by seq, so a run in this same process (published directly) is not
shown twice. With Redis (``REDIS_URL``) the worker publishes to every process and no
tail runs.
"""

from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer

from sessions.events import event_message, session_group
from sessions.models import SessionEvent

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.25  # latency a separate worker's events add on the default set-up
BATCH = 500


def events_after(session_id: int, after: int, limit: int = BATCH) -> list[dict]:
    """Stored event messages of the session with seq > ``after``, in seq order (at most ``limit``)."""
    return [
        event_message(e)
        for e in SessionEvent.objects.filter(session_id=session_id, seq__gt=after).order_by("seq")[:limit]
    ]


def last_seq(session_id: int) -> int:
    """The session's last stored seq (0 for an empty log)."""
    return (SessionEvent.objects.filter(session_id=session_id)
            .order_by("-seq").values_list("seq", flat=True).first()) or 0


class SessionTail:
    """One poller per watched session in this process, shared by its consumers."""

    _running: dict[int, SessionTail] = {}

    def __init__(self, session_id: int):
        self.session_id = session_id
        self.watchers = 0
        self.task: asyncio.Task

    @classmethod
    def needed(cls) -> bool:
        """True when the channel layer cannot carry events between processes."""
        return isinstance(get_channel_layer(), InMemoryChannelLayer)

    @classmethod
    async def watch(cls, session_id: int) -> SessionTail:
        """Count one more watcher of the session, starting its poller if needed."""
        tail = cls._running.get(session_id)
        if tail is None or tail.task.done():
            start = await database_sync_to_async(last_seq)(session_id)
            # Re-check after the await: another connect may have started one meanwhile,
            # and two pollers would send every event twice to every consumer.
            tail = cls._running.get(session_id)
            if tail is None or tail.task.done():
                tail = cls._running[session_id] = cls(session_id)
                tail.task = asyncio.get_running_loop().create_task(tail._run(start))
                # Says which set-up streams (tests/test_redis_fanout.py reads it).
                logger.info("Polling the event log of session %s (in-memory channel layer)",
                            session_id)
        tail.watchers += 1
        return tail

    def unwatch(self) -> None:
        """Count one watcher fewer; the last one stops the poller."""
        self.watchers -= 1
        if self.watchers <= 0:
            self.task.cancel()
            if self._running.get(self.session_id) is self:
                del self._running[self.session_id]

    async def _run(self, after: int) -> None:
        layer = get_channel_layer()
        group = session_group(self.session_id)
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                messages = await database_sync_to_async(events_after)(self.session_id, after)
            except Exception:  # a locked or busy database: try again next round
                logger.warning("Tail of session %s could not read events", self.session_id,
                               exc_info=True)
                continue
            if messages:
                # One group message per poll: a burst cannot overflow a consumer's
                # channel (the in-memory layer drops messages beyond its capacity).
                await layer.group_send(group, {"type": "session.events", "messages": messages})
                after = messages[-1]["seq"]
