"""Reads the session page needs beyond the shared selectors: coverage for the history
list, stored events grouped by turn, and the seq a rendered page has shown.

Access checks live in ``sessions.selectors`` and ``retrieval.selectors``.
"""

from __future__ import annotations

from collections import defaultdict

from sessions.events import event_message
from sessions.models import ResearchSession, RunStatus, Turn
from sessions.recovery import UNFINISHED


def session_coverage(session: ResearchSession) -> float | None:
    """Evidence coverage in [0, 1] of the session's last completed turn, or ``None``
    (uses the prefetched ``turns``)."""
    done = [t for t in session.turns.all() if t.status == RunStatus.COMPLETED]
    if not done:
        return None
    return max(done, key=lambda t: t.index).metrics.get("evidence_coverage")


def session_events_by_turn(*, session: ResearchSession) -> tuple[dict[int, list[dict]], int]:
    """The session's stored event messages grouped by their ``turn`` payload, and the
    last seq (0 for an empty log). Events without a turn (``session_created``) are left
    out of the groups."""
    groups: dict[int, list[dict]] = defaultdict(list)
    last = 0
    for event in session.events.order_by("seq"):
        message = event_message(event)
        last = message["seq"]
        if isinstance(message.get("turn"), int):
            groups[message["turn"]].append(message)
    return dict(groups), last


def replay_after(*, turns: list[Turn], events: dict[int, list[dict]], last_seq: int) -> int:
    """The seq a page rendered from stored data has shown up to: the last event of
    the finished turns before the first unfinished one (all events when every turn has
    finished). The page's websocket asks for the events after it."""
    shown = 0
    for turn in turns:
        if turn.status in UNFINISHED:
            return shown
        seqs = [m["seq"] for m in events.get(turn.index, [])]
        shown = max([shown, turn.log_seq or 0, *seqs])
    return last_seq
