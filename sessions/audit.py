"""Audit checks over a session's stored records (DESIGN.md §3)."""

from __future__ import annotations

from sessions.events import event_chain_verify
from sessions.models import ResearchSession


def session_log_verify(*, session: ResearchSession) -> list[str]:
    """Recompute the hash chain of ``session``'s event log against each finished turn's
    recorded head (``Turn.log_seq``, ``Turn.log_hash``).

    Returns the problems found, one sentence each (``sessions.events.event_chain_verify``);
    an empty list means the log is intact: no edited, inserted, deleted or reordered
    event and no truncation or rewrite up to any turn's head.
    """
    events = session.events.order_by("seq").iterator(chunk_size=500)
    anchors = session.turns.exclude(log_seq=None).order_by("index").values_list("log_seq", "log_hash")
    return event_chain_verify(events, anchors)
