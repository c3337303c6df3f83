"""The append-only session event log (DESIGN.md §3, §4).

Every event goes through ``EventLog.emit``, which stores a ``SessionEvent`` with the next
dense ``seq`` and ``hash = sha256(previous hash + canonical JSON of the message)``, then,
once stored for good (on commit), publishes it to the session's channel-layer group. The
message is what clients receive: ``{"type", "session", "seq", "ts", ...payload}``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from sessions.models import EventType, ResearchSession, SessionEvent

GENESIS_HASH = "0" * 64

logger = logging.getLogger(__name__)


def session_group(session_id: int) -> str:
    """The channel-layer group that receives one session's events as they are stored."""
    return f"session-{session_id}"


def event_publish(message: dict) -> None:
    """Send a stored event's message to its session's group (channel-layer message type
    ``session.event``). Delivery is best effort: consumers catch up from the stored log
    (DESIGN.md §4), so a channel-layer failure is logged, never raised."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            session_group(message["session"]), {"type": "session.event", "message": message}
        )
    except Exception:
        logger.warning("Could not publish event %s of session %s", message["seq"],
                       message["session"], exc_info=True)


def canonical_json(data: dict) -> str:
    """Stable JSON: sorted keys, no spaces, UTF-8 kept (RFC 8785-style canonical form
    for the JSON CIQ writes: strings, integers, finite floats, lists, objects)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def event_message(event: SessionEvent) -> dict:
    """The client-facing message of a stored event (DESIGN.md §4)."""
    return {
        "type": event.type,
        "session": event.session_id,
        "seq": event.seq,
        "ts": event.created.isoformat(),
        **event.payload,
    }


def event_hash(previous_hash: str, message: dict) -> str:
    """sha256 hex of ``previous_hash`` followed by the canonical JSON of ``message``."""
    return hashlib.sha256((previous_hash + canonical_json(message)).encode("utf-8")).hexdigest()


class EventLog:
    """Appends events to one session's log.

    One run writes a session's events at a time (a turn runs in one worker), so the last
    seq and hash are read once and then carried in memory; the unique (session, seq)
    constraint turns a concurrent writer into an ``IntegrityError`` instead of a fork.
    """

    def __init__(self, session: ResearchSession):
        self.session = session
        last = session.events.order_by("-seq").values_list("seq", "hash").first()
        self.seq, self.hash = last if last else (0, GENESIS_HASH)

    def emit(self, type: EventType | str, **payload) -> SessionEvent:
        """Store one event (committed at once unless the caller holds a transaction).

        ``payload`` must be JSON-serialisable and must not use the envelope keys.
        Raises ``ValueError`` for an unknown type or a reserved key.
        """
        type = EventType(type)
        if {"type", "session", "seq", "ts"} & payload.keys():
            raise ValueError("Event payload keys may not be type, session, seq or ts.")
        # Round-trip so the stored payload is exactly what the hash covered.
        payload = json.loads(json.dumps(payload, ensure_ascii=False))
        event = SessionEvent(
            session=self.session, seq=self.seq + 1, type=type, payload=payload,
            created=timezone.now(),
        )
        event.hash = event_hash(self.hash, event_message(event))
        with transaction.atomic():  # a failed insert must not poison a caller's transaction
            event.save(force_insert=True)
        self.seq, self.hash = event.seq, event.hash
        message = event_message(event)
        transaction.on_commit(lambda: event_publish(message))
        return event


def event_chain_verify(
    events: Iterable[SessionEvent], anchors: Iterable[tuple[int, str]] = ()
) -> list[str]:
    """Recompute the hash chain of one session's events (in seq order).

    ``anchors``: ``(seq, hash)`` pairs recorded elsewhere (each turn's ``log_seq`` and
    ``log_hash``); each must still be in the log, which shows a truncated log or one
    rewritten with fresh hashes up to that point.
    Returns a list of problems (empty when the log is intact): a gap in seq, an event
    whose stored hash differs from the recomputed one (edited type, payload or time, or a
    row deleted or inserted before it), or a missing or changed anchor.
    """
    problems: list[str] = []
    previous, expected_seq = GENESIS_HASH, 1
    stored: dict[int, str] = {}
    for event in events:
        if event.seq != expected_seq:
            problems.append(f"seq {event.seq}: expected seq {expected_seq} (gap or reorder)")
        recomputed = event_hash(previous, event_message(event))
        if recomputed != event.hash:
            problems.append(f"seq {event.seq}: hash mismatch (event edited or chain broken)")
        stored[event.seq] = event.hash
        previous, expected_seq = event.hash, event.seq + 1
    for seq, anchor in anchors:
        if stored.get(seq) != anchor:
            problems.append(f"seq {seq}: anchored hash missing or changed (log truncated or rewritten)")
    return problems
