"""Reads the pages need beyond the shared selectors: coverage for the history list,
stored events grouped by turn, the seq a rendered page has shown, a document's outline
and chunk pages, and the home page's recent sessions and example questions.

Access checks live in ``sessions.selectors`` and ``retrieval.selectors``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from retrieval.models import Document
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


# --- the document page ---------------------------------------------------------------

# Chunks per page of a document: the longest sample (378 chunks) took 1.4 s on one page.
CHUNKS_PER_PAGE = 25


@dataclass(frozen=True)
class OutlineEntry:
    """A heading of the document: the first chunk under it and that chunk's page of
    the chunk list (1-based, ``CHUNKS_PER_PAGE`` chunks a page)."""

    heading: str
    chunk_id: str
    page: int


@dataclass(frozen=True)
class DocumentOutline:
    """The document's headings in order (``entries``) and the page of every chunk id
    (``page_of``), from one query over the chunks' ids and headings."""

    entries: list[OutlineEntry]
    page_of: dict[str, int]


def document_outline(*, document: Document, per_page: int = CHUNKS_PER_PAGE) -> DocumentOutline:
    """One entry per run of chunks sharing a heading (chunks without one are left
    out), in document order; a heading that comes back after another is listed again,
    where it comes back. The caller has checked access to ``document``."""
    entries: list[OutlineEntry] = []
    page_of: dict[str, int] = {}
    last = None
    rows = document.chunks.order_by("ordinal").values_list("chunk_id", "heading")
    for position, (chunk_id, heading) in enumerate(rows):
        page = position // per_page + 1
        page_of[chunk_id] = page
        if heading and heading != last:
            entries.append(OutlineEntry(heading=heading, chunk_id=chunk_id, page=page))
        last = heading or last
    return DocumentOutline(entries=entries, page_of=page_of)
