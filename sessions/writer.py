"""Writers: turn a question and its retrieved chunks into cited Markdown (DESIGN.md §1).

Every factual sentence ends with ``[cite:CHUNK_ID]`` (12 lowercase hex) placed before
its final punctuation. ``Writer.stream`` yields the text as deltas; the concatenation of
the deltas is the full text.

The embedded ``ExtractiveWriter`` never paraphrases: it quotes the source sentences most
relevant to the question, so each sentence is literally present in the chunk it cites
(a Markdown table row is quoted as "label: column value; column value"). With a question
analysis (issue 9) an Answer leads with the sentence that states the asked fact for each
facet of the question, adds only sentences that address a facet, and says plainly when
the passages do not answer: a "Not answered" statement (:func:`not_answered_text`)
instead of a pile of quotes.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Protocol

from ciq.text import TITLE_MINOR_WORDS, content_terms, sentence_spans
from retrieval.index import query_terms
from retrieval.meaning import prefetch, relevance_by_meaning
from retrieval.question import YEAR_RE, Facet, FactKind, QuestionAnalysis, act_parties
from retrieval.relevance import Relevance, holds, other_district, out_of_place, sentence_relevance
from retrieval.search import RetrievedChunk
from sessions.prompts.revision import Finding
from verification.citations import CITE_RE
from verification.reading import Mention, mentions, roles
from verification.skeptic import NOT_ANSWERED, PARTIAL_GAP, RELATED_HEADING

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
MIN_RELEVANCE = 0.2  # below this relevance (facet score, or share of weighted terms) a sentence is off-topic
ANSWER_SENTENCES = 4
RELATED_SHOWN = 3  # nearest passages quoted under a "Not answered"
DRAFT_SENTENCES = 18
PER_CHUNK_LIMIT = {"answer": 2, "draft": 4}
REDUNDANCY_PENALTY = 0.6  # MMR-style (Carbonell & Goldstein 1998) weight of term overlap
MIN_WORDS, MAX_WORDS = 6, 160  # legal sentences run long; an answer quotes whole ones
MIN_ROW_WORDS = 3  # a label and its value
DELTA_WORDS = 4


@dataclass(frozen=True)
class WriteRequest:
    """Everything a Writer may use.

    ``term_weights``: Porter stem → weight (IDF) for the question's terms.
    ``exclude``: normalised sentences a revision must not repeat (unsupported claims).
    ``context``: the working memory summary (for model-backed writers).
    ``previous_text`` and ``findings``: in a revision, the text being revised and its
    claims the Judge did not accept (the model Writer's Revision prompt).
    ``analysis``: the question analysis (facets, kinds) every Writer answers against.
    ``searched``: a sentence naming what was searched (jurisdictions, documents).
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
    analysis: QuestionAnalysis | None = None
    searched: str = ""  # what was searched, for a "Not answered" statement
    author: str = ""  # the asking user's name: the memo's "From" line (Draft mode)


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
    facets: Relevance | None = None
    row: bool = False  # a row of a table or schedule, not a sentence of prose


def normalise_sentence(text: str) -> str:
    """Lowercase words only: the key under which a sentence is excluded in revisions."""
    return " ".join(re.findall(r"\w+", CITE_RE.sub("", text).lower()))


_MARKUP_RE = re.compile(r"\{\{signature\}\}|\*\*|__|`|^\s*(?:#+|>|[-*+•])\s*", re.M)
# List enumerators and section labels at the start of a sentence: "1.", "c.", "2)", "(b)",
# "(iv)", "Section 3.", "Sec. 4.2" (the label is not part of the quoted statement).
_CAPTION_RE = re.compile(r"^(?:§\s*)?\d+[A-Za-z]?(?:[.-]\d+[A-Za-z]?)+\s")
_DANGLING_RE = re.compile(r"\b(?:and|or|but|the|of|to)[;,.]?$", re.I)
_ENUMERATOR_RE = re.compile(
    r"^(?:(?:\([0-9a-zA-Z]{1,4}\)){2,}|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlcIVXLC]+\)|(?:Section|SECTION|Sec\.)\s+[\w.-]+\.)\s+"
)
_FILLED_RE = re.compile(r"\{\{filled:([^}]*)\}\}")


def clean_sentence(raw: str, *, row: bool = False) -> str | None:
    """A source sentence made fit to quote, or None if it is not a quotable sentence
    (too short or long, a heading, a list intro, mostly non-letters). A table ``row``
    ("Minimum lot size: 3 acres.") states its fact in fewer words: it needs
    :data:`MIN_ROW_WORDS`."""
    text = _FILLED_RE.sub(r"\1", raw)
    text = _MARKUP_RE.sub("", text)
    text = re.sub(r"\s+", " ", text).strip(" -–—")
    while (stripped := _ENUMERATOR_RE.sub("", text)) != text:  # "(5)(a) The owner …"
        text = stripped
    words = text.split()
    if not ((MIN_ROW_WORDS if row else MIN_WORDS) <= len(words) <= MAX_WORDS):
        return None
    letters = sum(ch.isalpha() for ch in text)
    if letters < 0.6 * len(text.replace(" ", "")) or text.upper() == text:
        return None
    # A quote starts where a sentence starts: a capital, a digit, "§", "$" (a schedule's
    # row: "$50.00 per Lot fronting on …") or an opening quote.
    if text.endswith(":") or not (text[0].isupper() or text[0].isdigit() or text[0] in "§$\"“"):
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


_TABLE_ROW_RE = re.compile(r"^\s*\|(.+)\|\s*$")
_TABLE_RULE_RE = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


def table_sentences(text: str) -> list[str]:
    """Markdown table rows of ``text`` as sentences: "first cell: header value; header
    value." (the header row and the rule under it are not rows)."""
    sentences, header = [], None
    for line in text.splitlines():
        row = _TABLE_ROW_RE.match(line)
        if not row or _TABLE_RULE_RE.match(line):
            if not row:
                header = None
            continue
        cells = [c.strip() for c in row.group(1).split("|")]
        if header is None:
            header = cells
            continue
        values = [f"{h} {v}".strip() if h else v for h, v in zip(header[1:], cells[1:], strict=False) if v]
        if cells[0] and values:
            sentences.append(f"{cells[0]}: {'; '.join(values)}.")
    return sentences


# A two-column schedule laid out with tabs (fee schedules and dimensional standards
# converted from Word or PDF): each cell on its own line after a tab, a label cell
# followed by its value cell; a label with no value of its own heads the group of rows
# under it ("Building Fees & Permits", "Maximum building height").
_TABBED_VALUE_RE = re.compile(
    r"^(?:\$\s?\.?\d|\d[\d,.]*\s*(?:%|percent|dollars?)|N/C$|No (?:[\w&]+ )?charge\b|Free\b|None$"
    r"|(?:Per|@) .*\$\s?\.?\d"
    # a dimensional standard: "50 feet", "200–300 feet*", "35/35 feet", "9 acres", "10 units per acre"
    r"|\d[\d,.]*(?:\s*[–/-]\s*\d[\d,.]*)?\s*(?:feet|foot|ft\b|acres?\b|sq(?:uare|\.)?\s*(?:feet|ft)"
    r"|stories\b|story\b|inches\b|miles?\b|units? per acre))", re.I)
TABBED_MIN_VALUES = 3  # fewer tab-led values is prose with a stray tab, not a schedule


@dataclass
class _TabCell:
    """One cell of a tab-laid schedule: its text, its indent (spaces after the tab) and
    whether an empty cell follows it (the empty value cell of a group's heading)."""

    text: str
    indent: int
    opens: bool = False
    value: bool = False


def _tab_cells(text: str) -> list[_TabCell]:
    """The non-empty cells of ``text``: a cell starts on a line that begins with a tab or
    with no indent; a line indented with spaces continues the cell above."""
    raw: list[_TabCell] = []
    for line in text.splitlines():
        body = line[1:] if line.startswith("\t") else line
        stripped = " ".join(line.split())
        if line.startswith("\t") or not raw or not line[:1].isspace():
            raw.append(_TabCell(stripped, len(body) - len(body.lstrip(" "))))
        elif stripped:
            raw[-1].text = f"{raw[-1].text} {stripped}".strip()
    for cell, after in zip(raw, raw[1:], strict=False):
        cell.opens = not after.text
    cells = [c for c in raw if c.text]
    for cell in cells:
        cell.value = bool(_TABBED_VALUE_RE.match(cell.text)) and len(cell.text) <= 60
    return cells


def _heads_group(cells: list[_TabCell], i: int) -> bool:
    """Whether cell ``i`` heads a group: a short label without figures whose value cell is
    empty, or whose next cell is a label indented under it with a value of its own."""
    cell, after = cells[i], cells[i + 1:i + 3]
    letters = sum(ch.isalpha() for ch in cell.text)
    if re.search(r"[\d$]", cell.text) or len(cell.text.split()) > 8 or letters < 3:
        return False
    if not after or after[0].value:
        return False
    return cell.opens or (after[0].indent > cell.indent and len(after) > 1 and after[1].value)


def tabbed_sentences(text: str) -> list[str]:
    """Rows of a tab-laid schedule in ``text`` as sentences: "Group — label: value."
    (e.g. "Building Fees & Permits — Dwelling or Addition: $0.20/sq ft-$75 Minimum.",
    "Maximum building height — Principal structures: 40 feet."). A group holds the rows
    after its heading that are indented as deep as its first row (one space of ragged
    alignment allowed); a row indented less or a paragraph ends it, and so does a label
    whose value is not read unless it is indented as a row of the group. A label followed
    by two values is a row of a grid of more than two columns ("Lattice", "5,000 feet",
    "5,000 feet", "1,500 feet"), which has no one value: it is not read. Text with fewer
    than :data:`TABBED_MIN_VALUES` tab-led values has no schedule: []."""
    cells = _tab_cells(text)
    if sum(c.value for c in cells) < TABBED_MIN_VALUES:
        return []
    rows: list[str] = []
    group, group_indent, member_indent = "", 0, None
    unread = False  # the cell before was a label whose value is not read: this cell is that value
    for i, cell in enumerate(cells):
        if cell.value or unread or not any(ch.isalpha() for ch in cell.text):
            unread = False
            continue
        value = cells[i + 1] if i + 1 < len(cells) and cells[i + 1].value else None
        grid = i + 2 < len(cells) and cells[i + 2].value
        if value and not grid and len(cell.text.split()) <= 24:
            if group and member_indent is None:
                member_indent = cell.indent if cell.indent >= group_indent else None
                group = group if member_indent is not None else ""
            elif group and cell.indent < member_indent - 1:
                group = ""
            label = cell.text.rstrip(" :")
            rows.append(f"{group} — {label}: {value.text}." if group else f"{label}: {value.text}.")
        elif _heads_group(cells, i):
            group, group_indent, member_indent = cell.text.rstrip(" :"), cell.indent, None
        else:
            short = len(cell.text.split()) <= 8 and not cell.text.endswith(":")
            member = member_indent is not None and cell.indent >= member_indent - 1
            group = group if member and short else ""
            unread = short
    return rows


_LIST_ITEM_RE = re.compile(r"^\s*(?:\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlcIVXLC]+\)|[-*•])\s+")
LIST_ITEMS = 8  # items of a list read after its introduction


def _label_style(label: str) -> str:
    """The numbering style of a list label: digit, roman, lower, upper or bullet."""
    core = label.strip(" ().")
    if core.isdigit():
        return "digit"
    if re.fullmatch(r"[ivxlc]+", core) and (len(core) > 1 or core == "i"):
        return "roman"
    if core.isalpha():
        return "lower" if core.islower() else "upper"
    return "bullet"


def _chunk_sentences(chunk: RetrievedChunk) -> tuple[list[str], int]:
    """The chunk's sentences (pysbd), each list introduction ("… neither Vector nor its
    funds will, directly or indirectly:") joined with each of its items ("(ii) any tender
    or exchange offer …"), which alone are fragments, then its table rows as
    :func:`table_sentences` and :func:`tabbed_sentences`; and how many of them are prose
    (the rows come after)."""
    prose = "\n".join(line for line in chunk.text.splitlines() if not _TABLE_ROW_RE.match(line))
    sentences = [prose[s:e] for s, e in sentence_spans(prose)]
    joined = []
    for i, sentence in enumerate(sentences):
        if sentence.rstrip().endswith(":"):
            style = None
            for item in sentences[i + 1:i + 1 + LIST_ITEMS]:
                label = _LIST_ITEM_RE.match(item)
                # The list ends where the labels change style: "(3)" after "(A)", "(B)"
                # is the section's next subsection, not an item of this list.
                if not label or style not in (None, _label_style(label.group())):
                    break
                style = _label_style(label.group())
                joined.append(f"{sentence.rstrip()} {_LIST_ITEM_RE.sub('', item, count=1)}")
    prose = sentences + joined
    return prose + table_sentences(chunk.text) + tabbed_sentences(chunk.text), len(prose)


# A labelled line ("(b) …", "(a)(2)(ii) …", "4. …") and the label of the line after it.
_LABELLED_LINE_RE = re.compile(r"^\s*((?:\([0-9a-zA-Z]{1,5}\))+|\d{1,3}\.)\s+(\S.*?)\s*$")
# The first item of a list, in each numbering style: a caption is followed by its first item.
_FIRST_LABELS = frozenset("1 i a A I".split())
# Words a caption does without: it names a topic and states nothing.
_STATING_RE = re.compile(r"\b(?:shall|must|may|will|can|is|are|was|were|be|been|means|has|have|does|do)\b",
                         re.I)
CAPTION_MAX_WORDS = 20


def _captions(text: str, sentences: Sequence[str | None]) -> set[int]:
    """Positions of ``sentences`` (of a chunk whose text is ``text``, each as
    :func:`clean_sentence` gives it, None for one it drops) that are a paragraph's
    caption, which names what the paragraph is about and states no rule, so it is never
    quoted, as a heading is not:

    - a sentence said twice in a row ("(b) Notice before maturity for time accounts
      longer than one month that renew automatically. Notice before maturity …", as the
      CFR's eRegulations text opens 108 paragraphs of the corpus);
    - a title set as a sentence (:func:`_title_cased`);
    - a labelled line of at most :data:`CAPTION_MAX_WORDS` words without a verb that
      states (:data:`_STATING_RE`), not ending as a list item does (",", ";", ":"),
      followed by the first item of a list in another style ("(b) Notice before maturity
      … automatically." then "1. Maturity dates on nonbusiness days …", as the CFR's
      official interpretations are laid out; "(v) … ;" then "(vi) …", or "(h) …" then
      "(i) …", is a list)."""
    keys = [normalise_sentence(s or "") for s in sentences]
    found = {i + d for i in range(len(keys) - 1) if keys[i] and keys[i] == keys[i + 1] for d in (0, 1)}
    found |= {i for i, s in enumerate(sentences) if s and _title_cased(s)}
    lines = [_LABELLED_LINE_RE.match(line) for line in text.splitlines() if line.strip()]
    titles = set()
    for line, after in pairwise(lines):
        if line is None or after is None:
            continue
        caption, label = line.group(2), _last_label(line.group(1)).strip("().")
        first = _last_label(after.group(1)).strip("().")
        sibling = len(label) == 1 and chr(ord(label) + 1) == first  # "(h)" then "(i)"
        if (len(caption.split()) <= CAPTION_MAX_WORDS and not _STATING_RE.search(caption)
                and caption[-1] not in ",;:" and first in _FIRST_LABELS and not sibling
                and _label_style(_last_label(line.group(1))) != _label_style(_last_label(after.group(1)))):
            titles.add(normalise_sentence(clean_sentence(line.group(0)) or ""))
    return found | {i for i, key in enumerate(keys) if key and key in titles}


def _title_cased(sentence: str) -> bool:
    """Whether ``sentence`` is a title set as a sentence: three to :data:`CAPTION_MAX_WORDS`
    words, each capitalised but the minor ones, no number and no verb that states
    ("Automatically Renewable Time Accounts With Maturities of One Year or Less But
    Longer Than One Month."); none with a colon, which names someone ("Present: Mayor …")."""
    words = sentence.rstrip(" .").split()
    return (3 <= len(words) <= CAPTION_MAX_WORDS and not any(c.isdigit() or c == ":" for c in sentence)
            and sentence.rstrip()[-1:] not in (",", ";")  # an item of a list of names
            and not _STATING_RE.search(sentence)
            and all(w[0].isupper() or w.lower() in TITLE_MINOR_WORDS for w in words if w[0].isalpha()))


def _last_label(label: str) -> str:
    """The innermost of chained labels: "(a)(2)(ii)" → "(ii)"."""
    return label[label.rfind("("):] if label.endswith(")") else label


DISTRICT_LOOKBACK = 300  # characters before a sentence that may name the district it is under


def district_scope(chunk: RetrievedChunk, sentence: str, *, row: bool = False) -> str:
    """The text that says which zoning district ``sentence`` (as :func:`_chunk_sentences`
    gives it) of ``chunk`` is about: the document title, the chunk's headings, the
    sentence and the :data:`DISTRICT_LOOKBACK` characters before it in the chunk (a
    table's introduction: "The following standards apply … in the R-1 district:"). A
    chunk that ends one district's table and starts the next names both, so the chunk
    as a whole cannot say."""
    start = sentence.split(" — ")[-1].split(":")[0] if row else sentence[:40]
    at = chunk.text.find(start.strip())
    before = chunk.text[max(0, at - DISTRICT_LOOKBACK):at] if at > 0 else ""
    return "\n".join([chunk.document_title, *chunk.heading_path, chunk.heading, before, sentence])


def candidates_for(request: WriteRequest) -> list[Candidate]:
    """Quotable sentences of the request's chunks with their relevance, best first.

    With a question analysis each sentence is also judged against the question's facets
    (:func:`retrieval.relevance.sentence_relevance`, read with its neighbours, the
    section heading and the document title; a key term may stand in the heading or title
    only; a chunk outside the question's local places addresses nothing; with the
    ``minilm`` extra, a sentence that only lacks coverage is read again by meaning, all
    of them in one batch) and ``relevance`` is that score; without one, ``relevance`` is
    the weighted share of the question's terms it holds.
    """
    weights = request.term_weights or {t: 1.0 for t in query_terms(request.question)}
    total = sum(weights.values())
    analysis = request.analysis
    by_meaning = analysis is not None and relevance_by_meaning()
    found: list[Candidate] = []
    near: list[tuple[Candidate, dict]] = []  # to be read again by meaning
    for chunk in request.chunks:
        heading = normalise_sentence(chunk.heading)
        raw, prose = _chunk_sentences(chunk)
        elsewhere = analysis is not None and out_of_place(
            analysis, chunk.jurisdiction, f"{chunk.document_title}\n{chunk.heading}\n{chunk.text}")
        cleaned = [clean_sentence(s, row=position >= prose) for position, s in enumerate(raw)]
        captions = _captions(chunk.text, cleaned[:prose])
        for position, (sentence, text) in enumerate(zip(raw, cleaned, strict=True)):
            if text is None:
                continue
            key = normalise_sentence(text)
            if key in request.exclude or (heading and key == heading) or position in captions:
                continue
            terms = frozenset(content_terms(text))
            if analysis is None:
                relevance = _relevance(terms, weights, total)
                if relevance >= MIN_RELEVANCE:
                    found.append(Candidate(chunk, position, text, terms, relevance, row=position >= prose))
                continue
            around = " ".join(raw[max(0, position - 1):position] + raw[position + 1:position + 2])
            reading = {"context": f"{chunk.document_title}\n{chunk.heading}\n{around}", "idf": weights,
                       "title": chunk.document_title, "scope": f"{chunk.document_title}\n{chunk.heading}",
                       "elsewhere": elsewhere or (bool(analysis.codes) and other_district(
                           analysis, district_scope(chunk, sentence, row=position >= prose)))}
            facets = sentence_relevance(analysis, text, **reading)
            candidate = Candidate(chunk, position, text, terms, facets.score, facets, row=position >= prose)
            if by_meaning and facets.near:
                near.append((candidate, reading))
            elif facets.score >= MIN_RELEVANCE:
                found.append(candidate)
    if near:
        prefetch([analysis.question] + [c.text for c, _ in near])  # one batch, not one call each
        for c, reading in near:
            facets = sentence_relevance(analysis, c.text, meaning=True, **reading)
            if facets.score >= MIN_RELEVANCE:
                found.append(replace(c, relevance=facets.score, facets=facets))
    # Relevance is capped at 1.0 for every sentence that addresses a facet; among those,
    # the one holding more of the facet's terms comes first ("Tree Cutting Permit: New
    # Fee $75" before "Building Structure permit review: New Fee $400" for a tree permit).
    # Then a table row that says it in the question's own words: "Minimum lot size: 3
    # acres." before "Lots with an area of 3 to 4 acres …" for "What is the minimum lot
    # size?". Only a row: in prose the rule and its exception share the words, and the
    # exception may be the one that repeats the question's ("may be extended … prior to
    # expiration" beside "shall lapse" within 18 months).
    own = [t.stems for t in analysis.topic if not t.told] if analysis is not None else []
    found.sort(key=lambda c: (-(c.relevance + 0.1 * c.chunk.score), -_best_coverage(c),
                              -sum(all(s in c.terms for s in stems) for stems in own) if c.row else 0,
                              c.chunk.rank, c.position))
    return found


def _best_coverage(c: Candidate) -> float:
    """The candidate's highest facet coverage in [0, 1], to a tenth (0.0 without facets)."""
    return round(max(c.facets.coverage, default=0.0), 1) if c.facets else 0.0


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


def _facet_key(c: Candidate, facet: int, parties: _AskedParties | None = None) -> tuple:
    """Order of the sentences that address ``facet``: its coverage (to a tenth), then
    whether the party the question has acting acts in it (``parties``), then the chunk's
    retrieval score, then the newer document."""
    acting = parties is not None and parties.acts_in(c)
    return (_coverage(c, facet), acting, round(c.chunk.score, 2), c.chunk.last_updated or dt.date.min)


# Where a sentence's subject ends: its verb or the first preposition after its head.
_SUBJECT_END_RE = re.compile(r"\b(?:shall|must|may|will|can|is|are|was|were|has|have|within|of|in|for|on|at"
                             r"|to|with|by|from|under)\b", re.I)


def subject_stems(text: str) -> set[str]:
    """The Porter stems of the subject of ``text``: its words before the verb or the first
    preposition ("No fence shall be constructed …" → {"fenc"}; "For emergency purposes, a
    gate …" → none)."""
    m = _SUBJECT_END_RE.search(text)
    return set(content_terms(text[:m.start()])) if m else set()


def _states_value_of(c: Candidate, facet: Facet) -> bool:
    """Whether ``c`` is about the thing an amount facet measures: its subject holds the
    facet's focus ("What's the tallest fence …": "No fence shall be constructed of a
    height greater than 8 feet", not "a gate … shall be provided for all rear yards that
    are enclosed by a fence with a height greater than 30 inches")."""
    if facet.kind != FactKind.AMOUNT or facet.focus is None:
        return False
    return holds(facet.focus, subject_stems(c.text))


def _coverage(c: Candidate, facet: int) -> float:
    """The candidate's coverage of ``facet`` in [0, 1], to a tenth."""
    return round(c.facets.coverage[facet], 1) if c.facets else 0.0


# Local law is amended by newer enactments of the same body (an ordinance's fee replaced
# by a later fee resolution); codified federal and state law and contracts are not.
SUPERSEDING_LEVELS = ("municipal", "county")


def document_date(chunk: RetrievedChunk) -> dt.date | None:
    """The date of the chunk's document: ``last_updated``, else 1 January of the year in
    its title ("… (2018)") or citation label ("Ord. No. 89-2018"), else None."""
    if chunk.last_updated:
        return chunk.last_updated
    for text in (chunk.document_title, chunk.citation_label):
        years = YEAR_RE.findall(text or "")
        if years:
            return dt.date(int(years[-1]), 1, 1)
    return None


def _newest_local(best: Candidate, options: Sequence[Candidate], facet: int) -> Candidate:
    """``best``, or the sentence of a newer document of the same local jurisdiction that
    addresses ``facet`` as fully: the newer enactment leads (supersession, issue 13 item 4;
    a 2024 fee resolution before the 2004 ordinance's fee)."""
    date = document_date(best.chunk)
    if best.chunk.jurisdiction_level not in SUPERSEDING_LEVELS or date is None:
        return best
    newer = [c for c in options if c.chunk.jurisdiction == best.chunk.jurisdiction
             and _coverage(c, facet) >= _coverage(best, facet)
             and (document_date(c.chunk) or date) > date]
    return max(newer, key=lambda c: (document_date(c.chunk), _facet_key(c, facet))) if newer else best


_CLAUSE_SPLIT_RE = re.compile(r";|,\s*(?:and|but|or)\s+")


def _acting_in(c: Candidate, parties: Sequence[Mention]) -> bool:
    """Whether one of ``parties`` is the agent of a clause of ``c``
    (``verification.reading.roles``)."""
    if not parties:
        return False
    agents = (roles(clause).agent for clause in _CLAUSE_SPLIT_RE.split(c.text))
    return any(agent is not None and agent.same(m) for agent in agents for m in parties)


@dataclass(frozen=True)
class _AskedParties:
    """The parties a facet's act names (``retrieval.question.act_parties``), as
    ``verification.reading`` mentions: ``actor`` who acts, ``acted_on`` what it is done to."""

    actor: tuple[Mention, ...]
    acted_on: tuple[Mention, ...]

    @classmethod
    def of(cls, clause: str) -> _AskedParties:
        actor, acted_on = act_parties(clause)
        return cls(mentions(actor) if actor else (), mentions(acted_on) if acted_on else ())

    def reversed_in(self, c: Candidate) -> bool:
        """Whether a party the question acts on acts in ``c`` (the agent of one of its
        clauses, ``verification.reading.roles``): "The Bureau shall inform the state
        official …" does not lead an answer to "does somebody have to tell the Bureau …?"."""
        return _acting_in(c, self.acted_on)

    def acts_in(self, c: Candidate) -> bool:
        """Whether the party the question has acting is the agent of one of ``c``'s
        clauses ("The council shall hold a regular meeting …" for "When does the city
        council meet?"; a notice published before a hearing has no such agent)."""
        return _acting_in(c, self.actor)

    def acted_upon_in(self, c: Candidate) -> bool:
        """Whether the party the question asks about as the one acting is only acted on
        in ``c``, by another party, and acts in none of its clauses: "the Building Official
        shall give the property owner or tenant notice" is no answer to "how much notice
        does the tenant owe the landlord?"."""
        if not self.actor:
            return False
        acted_upon = False
        for clause in _CLAUSE_SPLIT_RE.split(c.text):
            read = roles(clause)
            if read.agent is None:
                continue
            if any(read.agent.same(m) for m in self.actor):
                return False
            acted_upon = acted_upon or any(o.same(m) for o in read.objects for m in self.actor)
        return acted_upon


def _repeats(c: Candidate, picked: Sequence[Candidate]) -> bool:
    """Whether ``c`` says what a picked sentence says: a list item alone and joined to
    its introduction, a sentence with and without its heading."""
    return any(c.text.rstrip(".") in p.text or p.text.rstrip(".") in c.text for p in picked)


def answer_sentences(analysis: QuestionAnalysis, pool: Sequence[Candidate], *,
                     limit: int) -> tuple[list[Candidate], list[int]]:
    """The sentences of an Answer and the facets no sentence addresses.

    For each facet in question order, the best sentence that addresses it
    (:func:`_facet_key`: of those that cover it alike, one whose agent is the party the
    question has acting first; by its words before by meaning only), one in which a party the
    question acts on acts last; none in
    which the party the question has acting is only acted on by another
    (:class:`_AskedParties`).
    Then, up to ``limit``, other sentences that address a facet, the prose of the chunks
    already quoted first (a condition or an exception beside the rule; the other rows of
    a quoted schedule are other fees, not conditions), then the rest, each group by
    coverage, none repeating a quoted one; one addressed by meaning only, when some
    sentence's words answer, is left out. Nothing that addresses no facet.
    """
    picked: list[Candidate] = []
    missing: list[int] = []
    parties = [_AskedParties.of(facet.text) for facet in analysis.facets]
    pool = [c for c in pool if not any(p.acted_upon_in(c) for p in parties)]
    for i in range(len(analysis.facets)):
        if any(i in c.facets.addressed for c in picked):
            continue
        options = [c for c in pool if c.facets and i in c.facets.addressed and c not in picked
                   and not _repeats(c, picked)]
        options = [c for c in options if i not in c.facets.by_meaning] or options
        if not options:
            missing.append(i)
            continue
        direct = [c for c in options if not parties[i].reversed_in(c)]
        # Of sentences that cover the facet alike, one whose agent is the party the
        # question has acting leads, and only another such may supersede it.
        best = max(direct or options, key=lambda c: (_states_value_of(c, analysis.facets[i]),
                                                     *_facet_key(c, i, parties[i])))
        acting = parties[i].acts_in(best)
        peers = [c for c in direct if parties[i].acts_in(c) == acting]
        picked.append(_newest_local(best, peers, i))
    used = {c.chunk.chunk_id for c in picked}
    # A sentence read by meaning only may lead where no sentence's words answer; beside
    # an answer its words show, it would only lower the answer's confidence.
    by_words = any(c.facets.by_words for c in picked)
    extras = sorted((c for c in pool if c not in picked and c.facets and c.facets.addressed
                     and (c.facets.by_words or not by_words)),
                    key=lambda c: (c.row or c.chunk.chunk_id not in used, -_best_coverage(c)))
    for c in extras:
        if len(picked) >= limit:
            break
        overlap = max((len(c.terms & p.terms) / max(1, len(c.terms | p.terms)) for p in picked), default=0)
        if overlap < REDUNDANCY_PENALTY and not _repeats(c, picked):
            picked.append(c)
    return picked, missing


def related_list(related: Sequence[Candidate]) -> str:
    """Markdown bullets quoting the first :data:`RELATED_SHOWN` of ``related`` (best
    first) that say something new, each with its pinpoint citation; "" when none."""
    shown: list[Candidate] = []
    for c in related:
        if len(shown) == RELATED_SHOWN:
            break
        if not _repeats(c, shown):
            shown.append(c)
    return "\n".join(f"- “{_escaped(c.text)}” — {_escaped(c.chunk.cited_pinpoint([c.text]))}" for c in shown)


def not_answered_text(request: WriteRequest, related: Sequence[Candidate] = ()) -> str:
    """The Markdown of a turn the passages do not answer: the plain statement first, what
    was searched, then the nearest passages under :data:`RELATED_HEADING` (quoted with
    their pinpoint citation, not cited: they are not claims and are never verified).
    A Draft request gets the memo's structure (:func:`sessions.memo.memo_not_answered`)."""
    if request.mode == "draft":
        from sessions.memo import memo_not_answered  # memo builds on this module

        return memo_not_answered(request, related, author=request.author)
    asked = request.analysis.facets[0].text if request.analysis else request.question
    parts = [f"{NOT_ANSWERED}: the documents searched do not state this ({_title(asked)})."]
    if request.searched:
        parts.append(request.searched)
    listed = related_list(related)
    if listed:
        parts += [f"## {RELATED_HEADING}", listed]
    return "\n\n".join(parts)


class ExtractiveWriter:
    """The embedded Writer: quotes the most relevant source sentences, each cited.

    Answer mode: up to 4 sentences in 1–3 paragraphs (one per document). Draft mode: a
    memorandum (:func:`sessions.memo.compose_memo`: header, Question Presented, Short
    Answer, Discussion by issue and authority level, Requirements and permits, Open
    questions, Sources). With target jurisdictions, an Answer's sections go by level
    (Federal, State, County, Municipal, then firm documents) and "Required permits and
    licenses" when any are found.
    Nothing relevant → "Not found in available sources."; with a question analysis an
    Answer is built by :meth:`_answer` and a question nothing addresses gets "Not
    answered" (:func:`not_answered_text`).
    """

    def compose(self, request: WriteRequest) -> str:
        """The full Markdown text (``stream`` yields it in deltas)."""
        if request.mode == "draft":
            from sessions.memo import compose_memo, memo_not_answered  # memo builds on this module

            if not request.chunks:
                return memo_not_answered(request, author=request.author)
            return compose_memo(request, author=request.author)
        pool = candidates_for(request)
        if request.analysis is not None:
            return self._answer(request, pool)
        if request.jurisdictions:
            return self._by_level(request, pool, ANSWER_SENTENCES, PER_CHUNK_LIMIT["answer"], False)
        picked = select(pool, limit=ANSWER_SENTENCES, per_chunk=PER_CHUNK_LIMIT["answer"])
        if not picked:
            return NOT_FOUND
        return "\n\n".join(_paragraphs(picked, max_paragraphs=3))

    def _answer(self, request: WriteRequest, pool: list[Candidate]) -> str:
        """An Answer that leads with the asked fact (see :func:`answer_sentences`); the
        facets no passage addresses are named after it; none addressed → "Not answered".
        With target jurisdictions the sentences after the lead go in sections by level
        (DESIGN.md §1), and permit requirements that address the question follow."""
        picked, missing = answer_sentences(request.analysis, pool, limit=ANSWER_SENTENCES)
        if not picked:
            return not_answered_text(request, related=pool)
        lead, rest = picked[0], sorted(picked[1:], key=lambda c: (c.chunk.rank, c.position))
        paragraphs = [cite(lead.text, lead.chunk.chunk_id)]
        if rest and request.jurisdictions:
            for level, heading in LEVEL_HEADINGS:
                in_level = [c for c in rest if c.chunk.jurisdiction_level == level]
                if in_level:
                    paragraphs.append(f"## {heading}")
                    paragraphs.append(" ".join(cite(c.text, c.chunk.chunk_id) for c in in_level))
        elif rest:
            paragraphs[0] += " " + " ".join(cite(c.text, c.chunk.chunk_id) for c in rest)
        permits = _permits(picked, [c for c in pool if c.facets and c.facets.relevant])[:2] \
            if request.jurisdictions else []
        if permits:
            paragraphs.append(f"## {PERMITS_HEADING}")
            paragraphs.append("\n".join(permits))
        for i in missing:
            paragraphs.append(f"{PARTIAL_GAP}: {_title(request.analysis.facets[i].text)}.")
        return "\n\n".join(paragraphs)

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


_MARKDOWN_SPECIAL_RE = re.compile(r"([\\`*_\[\]<>#|])")


def _escaped(text: str) -> str:
    """``text`` with Markdown's special characters escaped: shown as written, never as a
    link, an image or a heading (document text quoted outside the cited answer)."""
    return _MARKDOWN_SPECIAL_RE.sub(r"\\\1", text)


def _title(question: str) -> str:
    """The question as one line of plain text inside the answer: citation markers
    removed, Markdown specials escaped, at most 120 characters."""
    title = re.sub(r"\s+", " ", CITE_RE.sub("", question)).strip().rstrip("?.")
    return _escaped(title[:120] + ("…" if len(title) > 120 else ""))


