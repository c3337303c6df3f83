"""Reads the pages need beyond the shared selectors: coverage for the history list,
stored events grouped by turn, the seq a rendered page has shown, a document's outline
and chunk pages, and the home page's recent sessions and example questions.

Access checks live in ``sessions.selectors`` and ``retrieval.selectors``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, OuterRef, Subquery

from ciq.models import Workspace
from retrieval.models import Document, JurisdictionLevel
from sessions.events import event_message
from sessions.models import Outcome, ResearchSession, RunStatus, Turn
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


# --- the home page -------------------------------------------------------------------

def session_recent_list(*, user: AbstractBaseUser, workspace: Workspace,
                        limit: int = 5) -> list[ResearchSession]:
    """The user's ``limit`` newest sessions in ``workspace``, each with ``turn_count``
    and the outcome of its latest turn (``last_outcome``, "" until a run ends, and
    ``last_outcome_label``); one query. The caller has checked membership of
    ``workspace``."""
    latest = Turn.objects.filter(session=OuterRef("pk")).order_by("-index")
    sessions = list(
        ResearchSession.objects.filter(workspace=workspace, user=user)
        .annotate(turn_count=Count("turns"), last_outcome=Subquery(latest.values("outcome")[:1]))
        .order_by("-created", "-pk")[:limit]
    )
    for session in sessions:
        session.last_outcome = session.last_outcome or ""
        session.last_outcome_label = Outcome(session.last_outcome).label if session.last_outcome else ""
    return sessions


@dataclass(frozen=True)
class ExampleQuestion:
    """A question the home page offers to fill in: its text, the jurisdiction code to
    scope it to ("" for a private document) and the title of the document it is about."""

    question: str
    jurisdiction: str
    document_title: str


_CONTRACT_RE = re.compile(r"\b(agreement|contract|lease|license)\b", re.IGNORECASE)
_MINUTES_RE = re.compile(r"\bminutes\b", re.IGNORECASE)
# "Docks (2017)" -> "Docks": the year is in the citation already.
_TRAILING_YEAR_RE = re.compile(r"\s*\((?:\d{4}(?:-\d{2}){0,2}|\d{4} Edition)\)\s*$")
# Which kinds of document the examples come from first: the rules people ask about.
_EXAMPLE_ORDER = ["ordinance", "statute", "regulation", "contract", "guidance", "other", "minutes"]


def example_questions(*, workspace: Workspace, limit: int = 3) -> list[ExampleQuestion]:
    """Up to ``limit`` questions built from the titles of ``workspace``'s ready
    documents, one per kind (ordinances, statutes and regulations first, then
    contracts, guidance, the rest; the newest document of each kind): what a rule
    requires, how a contract is terminated, what guidance concludes, what a meeting
    decided. Empty for a workspace without ready documents: the page offers no example
    it has nothing to answer from. One query."""
    documents = (Document.objects.filter(workspace=workspace, status=Document.Status.READY)
                 .order_by("-last_updated", "title", "pk")
                 .only("title", "citation_label", "source_type", "jurisdiction",
                       "jurisdiction_level")[:500])
    newest: dict[str, Document] = {}
    for document in documents:
        newest.setdefault(_kind(document), document)
    kinds = sorted(newest, key=lambda k: (_EXAMPLE_ORDER.index(k) if k in _EXAMPLE_ORDER
                                          else len(_EXAMPLE_ORDER) - 1, k))
    return [
        ExampleQuestion(
            question=_example_for(newest[kind], kind=kind),
            jurisdiction="" if newest[kind].jurisdiction_level == JurisdictionLevel.PRIVATE
            else newest[kind].jurisdiction,
            document_title=newest[kind].title,
        )
        for kind in kinds[:limit]
    ]


def _kind(document: Document) -> str:
    if document.source_type == "contract" or _CONTRACT_RE.search(document.title):
        return "contract"
    if _MINUTES_RE.search(document.title):
        return "minutes"
    return document.source_type or "other"


def _example_for(document: Document, *, kind: str) -> str:
    """The example question about ``document``, named by the topic of its title when
    it names an Act ("the Fair Debt Collection Practices Act (Regulation F)"), else by
    its citation label and topic ("Rivergrove Ord. No. 52 (Flood)"), else by its title."""
    title = " ".join(document.title.split())
    if kind == "contract":
        return f"How can the {title.split(' between ')[0]} be terminated, and on what notice?"
    label = document.citation_label.strip()
    topic = _TRAILING_YEAR_RE.sub("", title.rsplit(" — ", 1)[1]) if " — " in title else ""
    if re.search(r"\bAct\b", topic):
        name = f"the {topic}"
    elif label and topic:
        name = f"{label} ({topic})"
    else:
        name = label or _TRAILING_YEAR_RE.sub("", title)
    if kind == "minutes":
        return f"What was decided, according to {name}?"
    if kind == "guidance":
        return f"What does {name} conclude?"
    return f"What does {name} require?"
