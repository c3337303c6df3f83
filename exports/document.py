"""The document model shared by the Markdown, PDF and DOCX exports.

``session_document`` turns ``ciq.session/1`` data (``exports.data.session_data``) into
plain, format-neutral parts: metadata pairs, and per turn the question, the answer as
blocks of text runs and footnote references, the evidence ledger rows and the
confidence lines. Every string is cleaned here (``clean``); each renderer escapes it for
its own format. Footnotes are numbered once per session, in order of first citation,
so a chunk cited again (in the same or a later turn) points to the same footnote.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass

from markdown_it import MarkdownIt

from ciq.text import markdown_plain
from retrieval.models import page_label
from sessions.models import Outcome
from verification.citations import CITE_ID_RE, CITE_RE
from verification.judge import SNIPPET_CHARS
from verification.models import Verdict
from verification.skeptic import memo_header_end

# Characters XML 1.0 cannot hold (python-docx and HTML parsers refuse them) and
# unpaired surrogates; tabs and newlines stay.
_UNSAFE_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")
_SPACE_RE = re.compile(r"\s+")


def clean(text: str | None) -> str:
    """``text`` in NFC with characters XML cannot hold removed (``None`` → "")."""
    return _UNSAFE_RE.sub("", unicodedata.normalize("NFC", text or "")).replace("\r\n", "\n")


def one_line(text: str | None) -> str:
    """``clean(text)`` with every run of whitespace (newlines too) made one space."""
    return _SPACE_RE.sub(" ", clean(text)).strip()


def plain(text: str | None) -> str:
    """``clean(text)`` on one line without Markdown markup (``ciq.text.markdown_plain``).
    Every export format (footnotes, ledger) uses it; the JSON export keeps the stored
    text as it is."""
    return markdown_plain(clean(text))


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def _when(value: str | None) -> str:
    if not value:
        return "—"
    return dt.datetime.fromisoformat(value).astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True)
class Note:
    """A footnote: one cited chunk, numbered from 1 across the session."""

    number: int
    chunk_id: str
    title: str
    label: str
    pages: str
    snippet: str
    pinpoint: str = ""  # "12 CFR § 1006.8", "Hosting Agreement § 7.2, p. 4"

    @property
    def cite(self) -> str:
        """The pinpoint citation (it holds the pages), else "Label, p. 3"."""
        return self.pinpoint or ", ".join(p for p in (self.label, self.pages) if p)

    @property
    def reference(self) -> str:
        """"Title — 12 CFR § 1006.8" (the parts that exist)."""
        return " — ".join(p for p in (self.title, self.cite) if p)


@dataclass(frozen=True)
class Run:
    """A piece of answer text with its emphasis."""

    text: str
    strong: bool = False
    em: bool = False
    code: bool = False


@dataclass(frozen=True)
class NoteRef:
    """A citation in the text; ``first`` is the note's first reference in the session
    (where PDF and DOCX place the footnote itself)."""

    note: Note
    first: bool


@dataclass(frozen=True)
class Block:
    """A heading (``level`` = outline depth from 1, never skipping one), a paragraph, or
    a list item (``level`` = depth from 1, ``marker`` "•" or "3.")."""

    kind: str
    inlines: tuple[Run | NoteRef, ...]
    level: int = 0
    marker: str = ""


@dataclass(frozen=True)
class LedgerRow:
    """One claim of the evidence ledger; ``score`` and ``confidence`` in [0, 1]."""

    index: int
    claim: str
    type: str
    verdict: str
    verdict_label: str
    score: float
    confidence: float
    level: str
    source: str


@dataclass(frozen=True)
class TurnPart:
    """One turn as the exports show it."""

    index: int
    question: str
    status: str
    error: str
    blocks: tuple[Block, ...]
    ledger: tuple[LedgerRow, ...]
    confidence: tuple[str, ...]  # retrieval, claim-level, recommendations, metrics lines
    outcome: str = ""  # "Answered", "Partially answered (…)", "Not answered"; "" while running


@dataclass(frozen=True)
class SessionDocument:
    """A session ready to render: ``metadata`` is ``(label, value)`` pairs.

    ``memo_first``: a Draft session whose answers are memos (issue 13): every format
    opens with the memos themselves, one per turn, and puts the session's metadata, the
    questions, confidences and ledgers after them."""

    session_id: int
    title: str
    metadata: tuple[tuple[str, str], ...]
    turns: tuple[TurnPart, ...]
    notes: tuple[Note, ...]
    log_hash: str
    memo_first: bool = False


class _Notes:
    """Hands out each cited chunk's note, remembering which were referenced already."""

    def __init__(self, notes: dict[str, Note]):
        self.notes, self.seen = notes, set()

    def ref(self, chunk_id: str) -> NoteRef:
        note = self.notes[chunk_id]
        first = chunk_id not in self.seen
        self.seen.add(chunk_id)
        return NoteRef(note, first)


_MARKDOWN = MarkdownIt("commonmark", {"html": False})


def _runs(inline_token, notes: _Notes) -> tuple[Run | NoteRef, ...]:
    """The runs of one markdown-it inline token, with citation markers as note refs."""
    runs: list[Run] = []
    strong = em = 0
    for child in inline_token.children or ():
        kind = child.type
        if kind in ("strong_open", "strong_close"):
            strong += 1 if kind == "strong_open" else -1
        elif kind in ("em_open", "em_close"):
            em += 1 if kind == "em_open" else -1
        elif kind in ("text", "code_inline", "softbreak", "hardbreak", "image"):
            text = " " if kind.endswith("break") else child.content
            run = Run(clean(text), bool(strong), bool(em), kind == "code_inline")
            previous = runs[-1] if runs else None
            if previous and (previous.strong, previous.em, previous.code) == (
                    run.strong, run.em, run.code):
                runs[-1] = Run(previous.text + run.text, run.strong, run.em, run.code)
            else:
                runs.append(run)
    out: list[Run | NoteRef] = []
    for run in runs:
        at = 0
        for m in CITE_RE.finditer(run.text):
            # The space before a marker belongs to the sentence, not before the note call.
            out.append(Run(run.text[at:m.start()].rstrip(), run.strong, run.em, run.code))
            out.extend(notes.ref(i.lower()) for i in CITE_ID_RE.findall(m.group(1)))
            at = m.end()
        out.append(Run(run.text[at:], run.strong, run.em, run.code))
    return tuple(p for p in out if not isinstance(p, Run) or p.text)


def outline_levels(levels: list[int]) -> list[int]:
    """Heading levels as written (``[1, 3, 3, 2, 4]``) as outline depths from 1 that
    never skip a level (``[1, 2, 2, 2, 3]``): a heading is one deeper than the nearest
    earlier heading of a higher (smaller) level, so an answer's ``#`` then ``###``
    becomes depth 1 then 2 and each export can place depth 1 under its "Answer"
    heading."""
    open_levels: list[int] = []  # written levels of the headings enclosing this one
    depths = []
    for level in levels:
        while open_levels and open_levels[-1] >= level:
            open_levels.pop()
        open_levels.append(level)
        depths.append(len(open_levels))
    return depths


def answer_blocks(markdown: str, notes: _Notes) -> tuple[Block, ...]:
    """The answer's markdown (CommonMark, raw HTML kept as text) as blocks. Code blocks
    become paragraphs; links keep their text only; images their alt text (nothing is
    ever fetched). Heading ``level`` is the outline depth from 1 (``outline_levels``),
    so no level is skipped."""
    blocks: list[Block] = []
    lists: list[list] = []  # per open list: [ordered, next number]
    heading = 0
    for token in _MARKDOWN.parse(clean(markdown)):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append([token.type == "ordered_list_open", int(token.attrGet("start") or 1)])
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif token.type == "list_item_open":
            ordered, number = lists[-1]
            marker = f"{number}." if ordered else "•"
            lists[-1][1] += 1
        elif token.type == "heading_open":
            heading = int(token.tag[1])
        elif token.type == "heading_close":
            heading = 0
        elif token.type == "inline":
            inlines = _runs(token, notes)
            if heading:
                blocks.append(Block("heading", inlines, heading))
            elif lists:
                blocks.append(Block("item", inlines, len(lists), marker))
            else:
                blocks.append(Block("paragraph", inlines))
        elif token.type in ("fence", "code_block"):
            blocks.append(Block("paragraph", (Run(clean(token.content).strip(), code=True),)))
    blocks = [b for b in blocks if b.inlines]
    depths = iter(outline_levels([b.level for b in blocks if b.kind == "heading"]))
    return tuple(Block(b.kind, b.inlines, next(depths), b.marker) if b.kind == "heading" else b
                 for b in blocks)


def _notes(data: dict) -> dict[str, Note]:
    """A note per cited chunk; its snippet is the ledger's evidence from that chunk when
    a claim has one, else the start of the chunk."""
    snippets: dict[str, str] = {}
    for turn in data["turns"]:
        for row in turn["ledger"]:
            if row["evidence_chunk_id"] and row["snippet"]:
                snippets.setdefault(row["evidence_chunk_id"], row["snippet"])
    return {
        c["chunk_id"]: Note(
            number=c["number"], chunk_id=c["chunk_id"],
            title=one_line(c["document_title"]) if c["known"]
            else f"Unknown source (chunk {c['chunk_id']})",
            label=one_line(c["citation_label"]), pages=page_label(c["page_start"], c["page_end"]),
            snippet=_clip(plain(snippets.get(c["chunk_id"]) or c["text"]), SNIPPET_CHARS),
            pinpoint=one_line(c.get("pinpoint")),
        )
        for c in data["chunks_cited"]
    }


def _source(chunk_id: str, turn: dict, notes: dict[str, Note]) -> str:
    """The ledger's source cell: "[3] 12 CFR § 1006.8" (the note's pinpoint citation), a
    pinpoint, label or title, or "—"."""
    if not chunk_id:
        return "—"
    if chunk_id in notes:
        note = notes[chunk_id]
        return f"[{note.number}] {note.cite or note.title}"
    source = next((s for s in turn["sources"] if s["chunk_id"] == chunk_id), {})
    if source.get("pinpoint"):
        return one_line(source["pinpoint"])
    name = one_line(source.get("citation_label") or source.get("document_title")) or chunk_id
    return ", ".join(p for p in (name, page_label(source.get("page_start"), source.get("page_end"))) if p)


def _confidence(turn: dict) -> tuple[str, ...]:
    rc, cc, m = turn["retrieval_confidence"], turn["claim_confidence"], turn["metrics"]
    lines = []
    if rc:
        lines.append(f"Retrieval confidence: {rc['level']} ({rc['score']:.2f}) — {one_line(rc['reason'])}")
    if cc:
        lines.append(f"Claim confidence: {cc['level'].replace('_', ' ')} ({cc['mean']:.2f}) over "
                     f"{cc['claims']} claim(s)")
        lines += [f"• {one_line(r)}" for r in cc.get("recommendations", [])]
    if m:
        lines.append(
            f"Evidence coverage {m['evidence_coverage']:.0%} · citation density "
            f"{m['citation_density']:.2f}/paragraph · contradictions {m['contradiction_rate']:.0%}"
            f" · gaps {m['gap_rate']:.0%} · revisions {m['revision_cycles']} · total "
            f"{m['total_ms']:.0f} ms"
        )
    return tuple(lines)


def outcome_line(turn: dict) -> str:
    """The turn's outcome in words, with its answer coverage and the parts of the
    question left open: "Partially answered (answer coverage 50%); not found: …"."""
    outcome = turn.get("outcome") or ""
    if not outcome:
        return ""
    label = dict(Outcome.choices)[outcome]
    coverage = turn.get("answer_coverage")
    line = label + (f" (answer coverage {coverage:.0%})" if coverage is not None else "")
    open_facets = [one_line(f["text"]) for f in (turn.get("answerability") or {}).get("facets", [])
                   if not f.get("addressed")]
    if outcome == Outcome.PARTIAL and open_facets:
        line += "; not found in the documents: " + "; ".join(open_facets)
    if outcome == Outcome.NOT_ANSWERED:
        line += ": the documents searched do not answer this question"
    return line


def session_document(data: dict) -> SessionDocument:
    """The document model of ``ciq.session/1`` data (``exports.data.session_data``)."""
    notes = _notes(data)
    refs = _Notes(notes)
    labels = dict(Verdict.choices)
    turns = tuple(
        TurnPart(
            index=t["turn"], question=clean(t["question"]), status=t["status"],
            error=clean(t["error"]),
            blocks=answer_blocks(t["answer_markdown"], refs),
            ledger=tuple(
                LedgerRow(
                    index=r["index"], claim=plain(r["claim"]), type=r["type"],
                    verdict=r["verdict"], verdict_label=labels.get(r["verdict"], r["verdict"]),
                    score=r["score"], confidence=r["confidence"], level=r["level"].replace("_", " "),
                    source=_source(r["evidence_chunk_id"], t, notes),
                )
                for r in t["ledger"]
            ),
            confidence=_confidence(t),
            outcome=outcome_line(t),
        )
        for t in data["turns"]
    )
    s, log = data["session"], data["event_log"]
    chain = "chain verified" if log["intact"] else "CHAIN BROKEN: " + "; ".join(log["problems"])
    metadata = (
        ("Workspace", one_line(s["workspace"]["name"])),
        ("User", one_line(s["user"]) or "—"),
        ("Mode", s["mode"]),
        ("Verification mode", s["verification_mode"]),
        ("Jurisdictions", ", ".join(s["jurisdictions"]) or "all"),
        ("Status", s["status"]),
        ("Created", _when(s["created"])),
        ("Completed", _when(s["completed"])),
        ("Exported", _when(data["exported_at"])),
        ("Exported by", one_line(data["exported_by"]) or "—"),
        ("CIQ version", data["generator"]["version"]),
        ("Event log", f"{log['count']} events, head seq {log['head_seq']}, {chain}"),
        ("Event-log hash (sha256)", log["head_hash"] or "—"),
    )
    memo_first = s["mode"] == "draft" and any(
        memo_header_end(t["answer_markdown"] or "") is not None for t in data["turns"])
    return SessionDocument(
        session_id=s["id"], title=one_line(s["title"]), metadata=metadata, turns=turns,
        notes=tuple(notes.values()), log_hash=log["head_hash"], memo_first=memo_first,
    )
