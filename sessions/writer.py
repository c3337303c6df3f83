"""Writers: turn a question and its retrieved chunks into cited Markdown (DESIGN.md §1).

Every factual sentence ends with ``[cite:CHUNK_ID]`` (12 lowercase hex) placed before
its final punctuation. ``Writer.stream`` yields the text as deltas; the concatenation of
the deltas is the full text.

The embedded ``ExtractiveWriter`` never paraphrases: it quotes the source sentences most
relevant to the question, so each sentence is literally present in the chunk it cites.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ciq.text import content_terms, sentence_spans
from retrieval.index import query_terms
from retrieval.search import RetrievedChunk
from sessions.prompts.revision import Finding
from verification.citations import CITE_RE

NOT_FOUND = "Not found in available sources."
LEVEL_HEADINGS = [
    ("federal", "Federal"),
    ("state", "State"),
    ("county", "County"),
    ("municipal", "Municipal"),
    ("private", "Firm documents"),
]
PERMITS_HEADING = "Required permits and licenses"
_PERMIT_RE = re.compile(r"\b(permit|licen[cs]e|certificate of|variance|approval)s?\b", re.I)
_REQUIRED_RE = re.compile(
    r"\b(is required|are required|required (?:for|to|before)|must (?:obtain|apply|have|be issued)"
    r"|shall (?:obtain|apply|be required|require)|apply for|is needed|prior to)\b",
    re.I,
)

# Sentence selection (relevance = weighted query-term coverage, see _relevance).
MIN_RELEVANCE = 0.2  # below this share of the question's weighted terms, a sentence is off-topic
ANSWER_SENTENCES = 4
DRAFT_SENTENCES = 18
PER_CHUNK_LIMIT = {"answer": 2, "draft": 4}
REDUNDANCY_PENALTY = 0.6  # MMR-style (Carbonell & Goldstein 1998) weight of term overlap
MIN_WORDS, MAX_WORDS = 6, 90
DELTA_WORDS = 4


@dataclass(frozen=True)
class WriteRequest:
    """Everything a Writer may use.

    ``term_weights``: Porter stem → weight (IDF) for the question's terms.
    ``exclude``: normalised sentences a revision must not repeat (unsupported claims).
    ``context``: the working memory summary (for model-backed writers).
    ``previous_text`` and ``findings``: in a revision, the text being revised and its
    claims the Judge did not accept (the model Writer's Revision prompt).
    """

    question: str
    mode: str
    chunks: Sequence[RetrievedChunk]
    jurisdictions: Sequence[str] = ()
    term_weights: dict[str, float] = field(default_factory=dict)
    context: str = ""
    exclude: frozenset[str] = frozenset()
    previous_text: str = ""
    findings: tuple[Finding, ...] = ()


class Writer(Protocol):
    """What every Writer backend offers (extractive; model-backed in ``model_writer``).

    A model-backed Writer also has ``meter`` (its calls and tokens this turn) and
    ``synthesis`` (the two-lane synthesis fields of its last text, or None).
    """

    def stream(self, request: WriteRequest) -> Iterator[str]:
        """Yield the answer as text deltas."""
        ...


@dataclass(frozen=True)
class Candidate:
    """A quotable source sentence: its chunk, position in the chunk, cleaned text, Porter
    terms and relevance to the question in [0, 1]."""

    chunk: RetrievedChunk
    position: int
    text: str
    terms: frozenset[str]
    relevance: float


def normalise_sentence(text: str) -> str:
    """Lowercase words only: the key under which a sentence is excluded in revisions."""
    return " ".join(re.findall(r"\w+", CITE_RE.sub("", text).lower()))


_MARKUP_RE = re.compile(r"\{\{signature\}\}|\*\*|__|`|^\s*(?:#+|>|[-*+•])\s*", re.M)
# List enumerators and section labels at the start of a sentence: "1.", "c.", "2)", "(b)",
# "(iv)", "Section 3.", "Sec. 4.2" (the label is not part of the quoted statement).
_CAPTION_RE = re.compile(r"^(?:§\s*)?\d+[A-Za-z]?(?:[.-]\d+[A-Za-z]?)+\s")
_DANGLING_RE = re.compile(r"\b(?:and|or|but|the|of|to)[;,.]?$", re.I)
_ENUMERATOR_RE = re.compile(
    r"^(?:\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlcIVXLC]+\)|(?:Section|SECTION|Sec\.)\s+[\w.-]+\.)\s+"
)
_FILLED_RE = re.compile(r"\{\{filled:([^}]*)\}\}")


def clean_sentence(raw: str) -> str | None:
    """A source sentence made fit to quote, or None if it is not a quotable sentence
    (too short or long, a heading, a list intro, mostly non-letters)."""
    text = _FILLED_RE.sub(r"\1", raw)
    text = _MARKUP_RE.sub("", text)
    text = re.sub(r"\s+", " ", text).strip(" -–—")
    text = _ENUMERATOR_RE.sub("", text)
    words = text.split()
    if not (MIN_WORDS <= len(words) <= MAX_WORDS):
        return None
    letters = sum(ch.isalpha() for ch in text)
    if letters < 0.6 * len(text.replace(" ", "")) or text.upper() == text:
        return None
    # A quote starts where a sentence starts: a capital, a digit, "§" or an opening quote.
    if text.endswith(":") or not (text[0].isupper() or text[0].isdigit() or text[0] in "§\"“"):
        return None
    # A section caption ("275.316 Notice of hearing; findings.") or a clause cut before
    # its continuation ("…; and") is not a statement.
    if _CAPTION_RE.match(text) and len(words) < 15 or _DANGLING_RE.search(text):
        return None
    if text[-1] in ";,":
        text = text[:-1] + "."
    elif text[-1] not in ".!?)\"'”":
        text += "."
    return text


def cite(sentence: str, chunk_id: str) -> str:
    """Attach the citation marker before the sentence's final punctuation."""
    end = len(sentence)
    while end and sentence[end - 1] in ".!?\"'”)":
        if sentence[end - 1] == ")" and "(" in sentence[: end - 1]:
            break
        end -= 1
    return f"{sentence[:end]} [cite:{chunk_id}]{sentence[end:]}"


def _relevance(terms: frozenset[str], weights: dict[str, float], total: float) -> float:
    """Share of the question's weighted terms present in the sentence, in [0, 1]."""
    if total <= 0:
        return 0.0
    return sum(w for t, w in weights.items() if t in terms) / total


def candidates_for(request: WriteRequest) -> list[Candidate]:
    """Quotable sentences of the request's chunks with their relevance, best first."""
    weights = request.term_weights or {t: 1.0 for t in query_terms(request.question)}
    total = sum(weights.values())
    found: list[Candidate] = []
    for chunk in request.chunks:
        heading = normalise_sentence(chunk.heading)
        for position, (start, end) in enumerate(sentence_spans(chunk.text)):
            text = clean_sentence(chunk.text[start:end])
            if text is None:
                continue
            key = normalise_sentence(text)
            if key in request.exclude or (heading and key == heading):
                continue
            terms = frozenset(content_terms(text))
            relevance = _relevance(terms, weights, total)
            if relevance >= MIN_RELEVANCE:
                found.append(Candidate(chunk, position, text, terms, relevance))
    found.sort(key=lambda c: (-(c.relevance + 0.1 * c.chunk.score), c.chunk.rank, c.position))
    return found


def select(candidates: Sequence[Candidate], *, limit: int, per_chunk: int) -> list[Candidate]:
    """Greedy maximal-marginal-relevance pick: relevance minus overlap with picks so far,
    at most ``per_chunk`` sentences from one chunk."""
    picked: list[Candidate] = []
    pool = list(candidates)
    while pool and len(picked) < limit:
        def gain(c: Candidate) -> float:
            overlap = max(
                (len(c.terms & p.terms) / max(1, len(c.terms | p.terms)) for p in picked),
                default=0.0,
            )
            return c.relevance + 0.1 * c.chunk.score - REDUNDANCY_PENALTY * overlap

        best = max(pool, key=gain)
        pool.remove(best)
        if gain(best) < MIN_RELEVANCE / 2:
            break
        if sum(1 for p in picked if p.chunk.chunk_id == best.chunk.chunk_id) < per_chunk:
            picked.append(best)
    return picked


def _paragraphs(picked: Sequence[Candidate], max_paragraphs: int) -> list[str]:
    """Sentences grouped by document (in rank order), source order within a chunk."""
    by_doc: dict[int, list[Candidate]] = {}
    for c in sorted(picked, key=lambda c: (c.chunk.rank, c.position)):
        by_doc.setdefault(c.chunk.document_id, []).append(c)
    groups = list(by_doc.values())
    if len(groups) > max_paragraphs:
        groups = groups[: max_paragraphs - 1] + [sum(groups[max_paragraphs - 1 :], [])]
    return [" ".join(cite(c.text, c.chunk.chunk_id) for c in group) for group in groups]


def _permits(used: Sequence[Candidate], pool: Sequence[Candidate]) -> list[str]:
    """Up to four cited list items naming a required permit or licence, from relevant
    sentences not already quoted in the body (a sentence is claimed once per answer)."""
    seen = {c.text for c in used}
    items = []
    for c in pool:
        if c.text not in seen and _PERMIT_RE.search(c.text) and _REQUIRED_RE.search(c.text):
            seen.add(c.text)
            items.append(f"- {cite(c.text, c.chunk.chunk_id)}")
        if len(items) == 4:
            break
    return items


class ExtractiveWriter:
    """The embedded Writer: quotes the most relevant source sentences, each cited.

    Answer mode: up to 4 sentences in 1–3 paragraphs (one per document). Draft mode: a
    title and one section per document (or per jurisdiction level), up to 18 sentences.
    With target jurisdictions, sections by level (Federal, State, County, Municipal,
    then firm documents) and "Required permits and licenses" when any are found.
    Nothing relevant → "Not found in available sources."
    """

    def compose(self, request: WriteRequest) -> str:
        """The full Markdown text (``stream`` yields it in deltas)."""
        pool = candidates_for(request)
        draft = request.mode == "draft"
        limit = DRAFT_SENTENCES if draft else ANSWER_SENTENCES
        per_chunk = PER_CHUNK_LIMIT["draft" if draft else "answer"]
        if request.jurisdictions:
            return self._by_level(request, pool, limit, per_chunk, draft)
        picked = select(pool, limit=limit, per_chunk=per_chunk)
        if not picked:
            return NOT_FOUND
        if not draft:
            return "\n\n".join(_paragraphs(picked, max_paragraphs=3))
        parts = [f"# {_title(request.question)}"]
        by_doc: dict[int, list[Candidate]] = {}
        for c in sorted(picked, key=lambda c: (c.chunk.rank, c.position)):
            by_doc.setdefault(c.chunk.document_id, []).append(c)
        for group in by_doc.values():
            parts.append(f"## {_source_heading(group[0].chunk)}")
            parts.extend(_paragraphs(group, max_paragraphs=1))
        return "\n\n".join(parts)

    def _by_level(self, request, pool, limit, per_chunk, draft) -> str:
        """Sections by jurisdiction level, spending one budget of ``limit`` sentences: each
        level offers its best picks and the most relevant ones overall are kept."""
        parts = [f"# {_title(request.question)}"] if draft else []
        offers = []
        for level, _ in LEVEL_HEADINGS:
            level_pool = [c for c in pool if c.chunk.jurisdiction_level == level]
            offers += select(level_pool, limit=max(2, limit // 2), per_chunk=per_chunk)
        used = sorted(offers, key=lambda c: -(c.relevance + 0.1 * c.chunk.score))[:limit]
        if not used:
            return NOT_FOUND
        for level, heading in LEVEL_HEADINGS:
            picked = [c for c in used if c.chunk.jurisdiction_level == level]
            if picked:
                parts.append(f"## {heading}")
                parts.extend(_paragraphs(picked, max_paragraphs=2 if draft else 1))
        permits = _permits(used, pool)[: 4 if draft else 2]
        if permits:
            parts.append(f"## {PERMITS_HEADING}")
            parts.append("\n".join(permits))
        return "\n\n".join(parts)

    def stream(self, request: WriteRequest) -> Iterator[str]:
        """Yield the composed text a few words at a time."""
        text = self.compose(request)
        pieces = re.findall(r"\S+\s*|\s+", text)
        for i in range(0, len(pieces), DELTA_WORDS):
            yield "".join(pieces[i : i + DELTA_WORDS])


def coalesced(deltas: Iterable[str], *, interval_ms: float, min_chars: int) -> Iterator[str]:
    """Deltas merged for ``content_chunk`` events, whose ``full_content`` makes each event
    as long as the text so far: the first delta passes at once (time to first token),
    then one merged delta whenever ``interval_ms`` have passed since the last one or
    ``min_chars`` characters are waiting, and the rest at the end. The concatenation is
    unchanged. Settings ``STREAM_INTERVAL_MS`` (100) and ``STREAM_MIN_CHARS`` (400).
    """
    buffer, last = "", None
    for delta in deltas:
        buffer += delta
        now = time.perf_counter()
        if last is None or (now - last) * 1000 >= interval_ms or len(buffer) >= min_chars:
            if buffer:
                yield buffer
                buffer, last = "", now
    if buffer:
        yield buffer


def _title(question: str) -> str:
    title = re.sub(r"\s+", " ", question).strip().rstrip("?.")
    return title[:120] + ("…" if len(title) > 120 else "")


def _source_heading(chunk: RetrievedChunk) -> str:
    return chunk.citation_label or chunk.document_title
