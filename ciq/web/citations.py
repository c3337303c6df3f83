"""Citations at hand (issue 14, item 1): the hover card of a citation [n] and the side
panel that shows the cited chunk in its document.

The card is built from the turn's stored data only (``sessions.selectors.turn_as_dict``:
the source snapshot and the ledger), so a card costs no query and reads the same after
the document is deleted. The panel reads the live chunk, its neighbours and the
document's headings; for a chunk whose document was since deleted or replaced it falls
back to the session's stored source snapshots (``Turn.sources``), marked as such.

Every text here comes from documents or models and is untrusted: it is escaped
(``django.utils.html.escape``) and only ``<mark>`` is added around the cited words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.http import Http404
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ciq.text import STOPWORDS, markdown_plain
from ciq.web.document_text import chunk_html
from ciq.web.rendering import highlighted
from retrieval.models import Chunk, Document, JurisdictionLevel, page_label
from retrieval.pinpoint import pinpoint_label
from sessions.models import ResearchSession, Revision
from sessions.selectors import session_get_for_user, source_pinpoint
from verification.citations import CITE_ID_RE, CITE_RE, cited_ids
from verification.models import Claim, LedgerEntry, Verdict

# A card's snippet, when the Judge stored none for the chunk, is the chunk's sentence
# that holds most of the claim's words, cut to this many characters.
SNIPPET_CHARS = 280
# Characters of the chunk's text shown either side of the Judge's snippet on a card.
CONTEXT_CHARS = 90
_WORD_RE = re.compile(r"\w+")
_SENTENCE_END_RE = re.compile(r"(?<=[.;:!?])\s+|\n\s*\n")
# Markdown debris a passage may carry into a snippet ("“d.** The dock…", "## Permits").


class PanelState:
    """Where the panel's chunk comes from: the live document, or the session's stored
    snapshot of a document since deleted or replaced, or nowhere (cited, never stored)."""

    LIVE = "live"
    DELETED = "deleted"
    REPLACED = "replaced"
    MISSING = "missing"


# --- the card --------------------------------------------------------------------------

def claim_per_marker(text: str, ledger: list[dict]) -> list[int | None]:
    """For each ``[cite:…]`` marker of ``text`` in order, the index of the ledger claim
    whose span (``[start, end)`` in ``text``) holds it and cites one of its ids; ``None``
    when no claim does (a marker in a heading, or a claim the Skeptic dropped).
    ``ledger``: the rows of ``turn_as_dict`` (``span``, ``cited_chunk_ids``, ``index``)."""
    out: list[int | None] = []
    for match in CITE_RE.finditer(text):
        ids = {i.lower() for i in CITE_ID_RE.findall(match.group(1))}
        found = None
        for row in ledger:
            start, end = row["span"]
            if start <= match.start() < end and ids & set(row["cited_chunk_ids"]):
                found = row["index"]
                break
        out.append(found)
    return out


def citation_cards(data: dict) -> list[dict]:
    """The hover cards of one turn, one per (cited chunk, claim) pair of the answer.

    ``data`` is ``sessions.selectors.turn_as_dict(turn)``. Each card: ``key``
    ("<chunk_id>:<claim index>", or "<chunk_id>:" for a marker outside any claim),
    ``number``, ``chunk_id``, ``title``, ``pinpoint``, ``pages``, ``snippet`` (escaped
    HTML with the claim's words in ``<mark>``), ``claim`` (the ledger row or ``None``)
    and ``verdict_label``. No query: everything comes from the stored turn.
    """
    sources = {s["chunk_id"]: s for s in data["sources"]}
    numbers = {c["chunk_id"]: c["number"] for c in data["citations"]}
    ledger = {row["index"]: row for row in data["ledger"]}
    text = data["answer_markdown"] or ""
    claims = claim_per_marker(text, data["ledger"])
    cards: dict[str, dict] = {}
    for match, claim_index in zip(CITE_RE.finditer(text), claims, strict=True):
        for chunk_id in (i.lower() for i in CITE_ID_RE.findall(match.group(1))):
            key = f"{chunk_id}:{'' if claim_index is None else claim_index}"
            if key in cards:
                continue
            source = sources.get(chunk_id, {})
            row = ledger.get(claim_index) if claim_index is not None else None
            cards[key] = {
                "key": key, "number": numbers.get(chunk_id), "chunk_id": chunk_id,
                "title": source.get("document_title") or "",
                "pinpoint": source.get("pinpoint") or "",
                "pages": page_label(source.get("page_start"), source.get("page_end")),
                "snippet": card_snippet(source=source, row=row, chunk_id=chunk_id),
                "claim": row,
                "verdict_label": Verdict(row["verdict"]).label if row else "",
            }
    return list(cards.values())


def card_snippet(*, source: dict, row: dict | None, chunk_id: str) -> SafeString:
    """The evidence snippet of a card, escaped HTML. When the Judge took the claim's
    evidence from this chunk: that snippet (the cited words) in ``<mark>``, with up to
    ``CONTEXT_CHARS`` of the chunk's text either side. Otherwise the chunk's sentence
    richest in the claim's words, those words in ``<mark>``. Empty for an unknown chunk
    without a snippet."""
    text = source.get("text") or ""
    if row and row.get("evidence_chunk_id") == chunk_id and row.get("snippet"):
        words = row["snippet"].split()
        pattern = r"\s+".join(re.escape(w) for w in words)
        match = re.search(pattern, text) if words else None
        if match is None:
            return mark_safe(f"<mark>{escape(_tidy(clip(row['snippet'], SNIPPET_CHARS)))}</mark>")  # noqa: S308
        before = _tidy(text[max(0, match.start() - CONTEXT_CHARS):match.start()])
        after = _tidy(text[match.end():match.end() + CONTEXT_CHARS])
        if match.start() > CONTEXT_CHARS:
            before = "…" + before.split(" ", 1)[-1]
        if match.end() + CONTEXT_CHARS < len(text):
            after = after.rsplit(" ", 1)[0] + "…"
        cited = _tidy(clip(match.group(), SNIPPET_CHARS))
        return mark_safe(  # noqa: S308 — every piece escaped
            f"{escape(before)}<mark>{escape(cited)}</mark>{escape(after)}")
    words = claim_words(row["claim"]) if row else set()
    return highlight_words(_tidy(clip(best_sentence(text, words), SNIPPET_CHARS)), words)


def _tidy(text: str) -> str:
    """``text`` on one line without Markdown debris (``**``, ``##``); the spaces at
    its ends are kept (they separate it from the cited words)."""
    lead = " " if text[:1].isspace() else ""
    tail = " " if text[-1:].isspace() else ""
    body = markdown_plain(text)
    return f"{lead}{body}{tail}" if body else lead


def claim_words(text: str) -> set[str]:
    """The claim's content words, case-folded: no stop words, numbers of any length,
    other words of three letters or more."""
    return {w for w in (m.casefold() for m in _WORD_RE.findall(text))
            if w not in STOPWORDS and (w.isdigit() or len(w) >= 3)}


def best_sentence(text: str, words: set[str]) -> str:
    """The sentence of ``text`` holding most of ``words`` (the first on a tie, the
    first sentence when ``words`` is empty)."""
    sentences = [s for s in _SENTENCE_END_RE.split(text) if s and s.strip()]
    if not sentences:
        return ""
    return max(sentences, key=lambda s: len(words & {w.casefold() for w in _WORD_RE.findall(s)}))


def highlight_words(text: str, words: set[str]) -> SafeString:
    """``text`` escaped, with every whole word in ``words`` (case-folded) in ``<mark>``."""
    out, pos = [], 0
    for match in _WORD_RE.finditer(text):
        if match.group().casefold() in words:
            out.append(escape(text[pos:match.start()]))
            out.append(f"<mark>{escape(match.group())}</mark>")
            pos = match.end()
    out.append(escape(text[pos:]))
    return mark_safe("".join(out))  # noqa: S308 — every piece escaped above


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word to ``limit`` characters with "…"."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"


# --- the panel -------------------------------------------------------------------------

@dataclass
class Passage:
    """One chunk as the panel shows it; ``text`` is escaped HTML."""

    chunk_id: str
    text: SafeString
    heading: str = ""
    pages: str = ""
    adjacent: bool = True  # False: the next passage the session stored, not the next one


@dataclass
class Panel:
    """What the side panel (and the chunk page) shows of one cited chunk.

    ``state`` is a :class:`PanelState` value; ``document_id`` is ``None`` unless the
    document is live; ``outline`` lists (heading, first chunk id under it, current?)
    in document order; ``claims`` the session's final ledger rows citing the chunk or
    taking their evidence from it: ``turn``, ``index``, ``text``, ``verdict``,
    ``verdict_label``."""

    session: ResearchSession
    chunk_id: str
    state: str
    title: str
    pinpoint: str
    citation_label: str
    jurisdiction: str
    jurisdiction_level: str
    heading: str
    pages: str
    ordinal: int | None
    document_id: int | None
    text: SafeString
    highlighted: bool
    previous: Passage | None = None
    next: Passage | None = None
    outline: list[tuple[str, str, bool]] = field(default_factory=list)
    claims: list[dict] = field(default_factory=list)

    @property
    def retired(self) -> bool:
        """Whether the chunk is shown from the stored snapshot."""
        return self.state != PanelState.LIVE


def citation_panel_get_for_user(*, user: AbstractBaseUser, session_id: int,
                                chunk_id: str) -> Panel:
    """The panel of chunk ``chunk_id`` in session ``session_id``.

    ``Http404`` when the session is not the user's (another firm's: "not yours" and
    "does not exist" look the same), or when the chunk is neither in the session's
    workspace nor in any of its turns' sources nor cited by it. A chunk of a deleted or
    replaced document comes from the latest turn that stored it; a chunk the session
    cites but never stored (a model Writer's stray id) gives a ``MISSING`` panel with
    the Judge's snippets, never a 404: a citation link always opens something.
    """
    session = session_get_for_user(user=user, session_id=session_id)
    chunk_id = chunk_id.lower()
    snippets, claims = _ledger_of(session, chunk_id)
    chunk = (Chunk.objects.select_related("document")
             .filter(document__workspace=session.workspace, chunk_id=chunk_id).first())
    if chunk is not None:
        return _live_panel(session, chunk, snippets, claims)
    return _stored_panel(session, chunk_id, snippets, claims)


def _ledger_of(session: ResearchSession, chunk_id: str) -> tuple[list[str], list[dict]]:
    """The Judge's snippets taken from the chunk in this session, and the final-revision
    claims citing it or using it as evidence."""
    finals: dict[int, tuple[int, int]] = {}  # turn pk -> (cycle, revision pk) of the last
    for turn_id, cycle, pk in Revision.objects.filter(turn__session=session).values_list(
            "turn_id", "cycle", "pk"):
        finals[turn_id] = max(finals.get(turn_id, (cycle, pk)), (cycle, pk))
    entries = (LedgerEntry.objects.filter(claim__turn__session=session)
               .select_related("claim", "claim__turn").order_by("claim__turn__index", "claim__index"))
    snippets: list[str] = []
    claims: list[dict] = []
    for entry in entries:
        claim: Claim = entry.claim
        if entry.evidence_chunk_id == chunk_id and entry.snippet and entry.snippet not in snippets:
            snippets.append(entry.snippet)
        final = finals.get(claim.turn_id)
        if claim.revision_id != (final[1] if final else None):
            continue
        if chunk_id in claim.cited_chunk_ids or entry.evidence_chunk_id == chunk_id:
            claims.append({"turn": claim.turn.index, "index": claim.index, "text": claim.text,
                           "verdict": entry.verdict, "verdict_label": Verdict(entry.verdict).label})
    return snippets, claims


def _live_panel(session: ResearchSession, chunk: Chunk, snippets: list[str],
                claims: list[dict]) -> Panel:
    document: Document = chunk.document
    rows = list(document.chunks.order_by("ordinal").values_list("ordinal", "chunk_id", "heading"))
    neighbours = {
        c.ordinal: c for c in document.chunks.filter(ordinal__in=[chunk.ordinal - 1, chunk.ordinal + 1])
    }
    return Panel(
        session=session, chunk_id=chunk.chunk_id, state=PanelState.LIVE, title=document.title,
        pinpoint=pinpoint_label(
            citation_label=document.citation_label, title=document.title,
            jurisdiction_level=document.jurisdiction_level, heading=chunk.pinpoint_heading,
            page_start=chunk.page_start, page_end=chunk.page_end),
        citation_label=document.citation_label, jurisdiction=document.jurisdiction,
        jurisdiction_level=document.get_jurisdiction_level_display(),
        heading=" › ".join(chunk.heading_path) or chunk.heading,
        pages=chunk.pages, ordinal=chunk.ordinal, document_id=document.pk,
        text=chunk_html(chunk.text, snippets=snippets), highlighted=bool(snippets),
        previous=_passage(neighbours.get(chunk.ordinal - 1)),
        next=_passage(neighbours.get(chunk.ordinal + 1)),
        outline=_outline([(cid, heading) for _, cid, heading in rows], chunk.chunk_id),
        claims=claims,
    )


def _passage(chunk: Chunk | None) -> Passage | None:
    if chunk is None:
        return None
    return Passage(chunk_id=chunk.chunk_id, text=escape(chunk.text), heading=chunk.heading,
                   pages=chunk.pages)


def _outline(chunks: list[tuple[str, str]], current: str) -> list[tuple[str, str, bool]]:
    """(heading, first chunk id, whether ``current`` is under it) per run of chunks
    sharing a heading, in document order; chunks without a heading are left out."""
    out: list[list] = []
    last = None
    for chunk_id, heading in chunks:
        if heading and heading != last:
            out.append([heading, chunk_id, False])
        if chunk_id == current and heading and out:
            out[-1][2] = True
        last = heading or last
    return [tuple(item) for item in out]


def _stored_panel(session: ResearchSession, chunk_id: str, snippets: list[str],
                  claims: list[dict]) -> Panel:
    """The panel from the session's source snapshots: the latest turn that stored the
    chunk, its stored neighbours of the same document (by character offsets) and the
    headings of the passages stored from it."""
    turns = list(session.turns.order_by("-index").only("index", "sources", "answer_markdown"))
    source = next((s for t in turns for s in t.sources if s.get("chunk_id") == chunk_id), None)
    if source is None:
        cited = any(chunk_id in cited_ids(t.answer_markdown) for t in turns)
        if not cited and not claims:
            raise Http404("No such chunk in this session.")
        return Panel(
            session=session, chunk_id=chunk_id, state=PanelState.MISSING, title="", pinpoint="",
            citation_label="", jurisdiction="", jurisdiction_level="", heading="", pages="",
            ordinal=None, document_id=None, text=highlighted(" … ".join(snippets), snippets),
            highlighted=bool(snippets), claims=claims,
        )
    document_id = source.get("document_id")
    # Same document, one snapshot per chunk (the latest turn's), in document order.
    stored: dict[str, dict] = {}
    for turn in turns:
        for item in turn.sources:
            if item.get("document_id") == document_id and item.get("chunk_id"):
                stored.setdefault(item["chunk_id"], item)
    ordered = sorted(stored.values(), key=lambda s: (s.get("char_start") or 0, s["chunk_id"]))
    at = ordered.index(stored[chunk_id])
    previous = ordered[at - 1] if at > 0 else None
    following = ordered[at + 1] if at + 1 < len(ordered) else None
    replaced = document_id is not None and Document.objects.filter(
        workspace=session.workspace, pk=document_id).exists()
    level = source.get("jurisdiction_level") or JurisdictionLevel.PRIVATE
    return Panel(
        session=session, chunk_id=chunk_id,
        state=PanelState.REPLACED if replaced else PanelState.DELETED,
        title=source.get("document_title", ""), pinpoint=source_pinpoint(source),
        citation_label=source.get("citation_label", ""),
        jurisdiction=source.get("jurisdiction", ""),
        jurisdiction_level=JurisdictionLevel(level).label,
        heading=" › ".join(source.get("heading_path") or ()) or source.get("heading", ""),
        pages=page_label(source.get("page_start"), source.get("page_end")),
        ordinal=None, document_id=None,
        text=chunk_html(source.get("text", ""), snippets=snippets), highlighted=bool(snippets),
        previous=_stored_passage(previous, adjacent=_touch(previous, source)),
        next=_stored_passage(following, adjacent=_touch(source, following)),
        outline=_outline([(s["chunk_id"], s.get("heading", "")) for s in ordered], chunk_id),
        claims=claims,
    )


def _touch(first: dict | None, second: dict | None) -> bool:
    """Whether stored passage ``second`` starts where ``first`` ends (or overlaps it):
    only then is it the neighbour, not just the next passage the session stored."""
    if not first or not second or first.get("char_end") is None or second.get("char_start") is None:
        return False
    return second["char_start"] <= first["char_end"]


def _stored_passage(source: dict | None, *, adjacent: bool) -> Passage | None:
    if source is None:
        return None
    return Passage(chunk_id=source["chunk_id"], text=escape(source.get("text", "")),
                   heading=source.get("heading", ""),
                   pages=page_label(source.get("page_start"), source.get("page_end")),
                   adjacent=adjacent)
