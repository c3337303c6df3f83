"""Structure-aware chunking: text in, character spans out (ingestion step 2, DESIGN.md §2).

A chunk is the unit of retrieval and citation, so it should hold one provision, or a few
short neighbouring ones, and name the section it comes from. The chunker works on lines
and runs in linear time (regular expressions only; no sentence model), so the whole
corpus chunks in a few seconds.

1. **Lines are classified.** A *heading* opens a section: Markdown ``#`` headings,
   ``§ 1006.2 Definitions.``, ``Section 4.2``, ``SECTION 5.080``, ``ARTICLE IV``,
   ORS-style ``156.010 Definitions.``, short numbered titles (``10.7 Purpose and Intent``,
   ``1. DEFINITIONS``), short ALL-CAPS lines and bold-only Markdown lines. A *clause*
   line starts with a list marker (``1.``, ``(a)``, ``12.3``, ``A.``, ``-``). Long lines
   are cut into sentences (a regex with an abbreviation guard), and sentences longer
   than half a chunk into word windows.
2. **Units are packed.** Consecutive units fill a chunk up to ``max_words``. A heading
   closes the current chunk once it holds ``min_words``, so chunks follow sections and
   small sections are packed together. When a section overflows, the chunk is cut at
   the best boundary past ``min_words`` (paragraph > clause > sentence > line wrap > word
   window, the latest of the best kind) and the next chunk repeats up to
   ``overlap_words`` of whole sentences, so a quote across the cut is whole in one chunk.
3. **Each chunk names its heading**: the heading line of its first section with real
   content (a bare title line or a short preamble does not count), without Markdown
   markup, at most 200 characters, and its **heading path**: the headings that enclose
   it, outermost first, ending with its own (``["PART 1005 …", "Section 1005.20 …",
   "2. Examples"]``). A heading's rank decides what it closes: Markdown ``#`` levels
   first, then divisions (part, chapter, article), title lines, sections (``§``, ORS
   and dotted numbers, deeper by their dots), then lettered, numbered and parenthesised
   items (:func:`heading_rank`). A new heading closes every open heading of the same or
   a deeper rank, so "B. Use Regulations" sits under "40.5 R-1A …" until "40.6 …".

Sizes are in words (whitespace-separated tokens); ``Chunk.token_count`` stores the same
count.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass

from ciq.text import TITLE_MINOR_WORDS

DEFAULT_MIN_WORDS = 150
DEFAULT_MAX_WORDS = 400
DEFAULT_OVERLAP_WORDS = 40
MAX_HEADING_CHARS = 200
# At most this many headings in a chunk's path (the innermost are kept).
MAX_PATH_DEPTH = 6

# Break scores: where a cut may fall, best first.
_HEADING, _PARAGRAPH, _CLAUSE, _SENTENCE, _WRAP, _WORDS = 5, 4, 3, 2, 1, 0

# Headings that may carry the section's body on the same line (CFR, ORS, contracts).
_HEADING_ANY_LENGTH_RE = re.compile(
    r"""(?:
        \#{1,6}\s+\S                                        # Markdown heading
      | §{1,2}\s*\d                                         # § 1006.2, §§ 117.5
      | (?:SECTION|Section|SEC\.|Sec\.)\s+\d+[A-Za-z]?(?:[.\-]\d+)*\b  # Section 4.2
      | \d{1,4}[A-Z]?\.\d{3,4}\s+[A-Z(]                     # ORS 156.010 Definitions
      | (?:>\s*)?(?:\*\*|__)(?:§{1,2}\s*\d|(?:SECTION|Section|SEC\.|Sec\.)\s+\d)  # **Section 2.** The …
    )""",
    re.VERBOSE,
)
# Headings only when the line is short (else they are prose that happens to start so).
_HEADING_SHORT_RE = re.compile(
    r"""(?:
        (?:ARTICLE|Article|CHAPTER|Chapter|SUBCHAPTER|Subchapter|PART|Part|SUBPART|Subpart
          |TITLE|Title|APPENDIX|Appendix|SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex)
          \s+(?:[IVXLCDM]+|\d+[A-Za-z]?(?:[.\-]\d+)*|[A-Z])\b
      | \d{1,3}(?:\.\d{1,3}){1,3}\.?\s+[A-Z"“(]             # 10.7 Purpose and Intent
      | (?:\d{1,2}|[A-Z]|[IVXL]{1,5})[.)]\s+[A-Z"“]         # 1. DEFINITIONS / A. Meanings
      | \*\*[^*]+\*\*:?$                                    # **ARTICLE 1 - General**
      | __[^_]+__:?$
    )""",
    re.VERBOSE,
)
_SHORT_HEADING_WORDS = 14
# A title line standing alone between blank lines, in title case, without a stop, right
# before a § section: how the CFR's eRegulations text names its subparts ("General
# Provisions", "Affiliate Marketing"). Page headers and table labels of contracts and
# county codes ("Confidential", "Residential") stand alone too, but not before a §.
_TITLE_LINE_WORDS = 12
_TITLE_LINE_RE = re.compile(r"[A-Z][A-Za-z'’-]*(?:,?\s+(?:[A-Z][A-Za-z'’-]*|&|[a-z]{1,4}))*")
_SECTION_FOLLOWS_RE = re.compile(r"[ \t\r]*\n[ \t\r]*\n\s*§{1,2}\s*\d")
_CLAUSE_RE = re.compile(
    r"(?:\(\w{1,4}\)|\d{1,3}[.)]|[A-Za-z][.)]|\d{1,3}(?:\.\d{1,3})+\.?|[-*•●▪◦])\s"
)
_UPPER_RE = re.compile(r"[A-Z]")
_LOWER_RE = re.compile(r"[a-z]")
# A sentence ends at . ! ? (closing quotes/brackets allowed) before whitespace and a
# capital, digit, quote, bracket or section sign.
_SENTENCE_END_RE = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[\"“(\[]?[A-Z0-9§])")
_ABBREVIATIONS = frozenset({
    "no", "nos", "sec", "secs", "art", "arts", "v", "vs", "inc", "co", "corp", "ltd", "llc",
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "etc", "fig", "figs", "p", "pp", "para",
    "paras", "ch", "chs", "cl", "ord", "res", "approx", "dept", "govt", "ave", "blvd", "rd",
    "mt", "ft", "subd", "subsec", "seq", "al", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
    "sep", "sept", "oct", "nov", "dec", "ex", "exh", "op", "cf",
})
_DOTTED_ABBREVIATION_RE = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_WORD_RE = re.compile(r"\S+")
_NONEMPTY_LINE_RE = re.compile(r"[^\n]+")
_HEADING_MARKUP_RE = re.compile(r"^#{1,6}\s+|^\*\*|\*\*:?$|^__|__:?$")
_FIRST_SENTENCE_RE = re.compile(r"^(.{3,}?[a-z)\]][.:])\s")


@dataclass(frozen=True)
class ChunkSpan:
    """One chunk of a text: ``text[char_start:char_end]`` (end exclusive).

    ``heading``: the section heading line in force (≤ 200 characters, "" if none).
    ``heading_path``: the enclosing headings, outermost first, ending with ``heading``
    (at most ``MAX_PATH_DEPTH``; ``()`` when ``heading`` is "").
    ``page_start``/``page_end``: 1-based pages of the first and last character, or
    ``None`` when the text has no pages. ``words``: whitespace-separated tokens.
    ``sections``: where each section the chunk holds begins, as ``(offset, path)`` pairs
    (offset in characters from ``char_start``, the heading path in force from there on),
    in text order; ``()`` when the whole chunk lies in one section. A chunk that packs
    several short sections is named by the first (``heading``), and these say which
    section each of its sentences sits in (the pinpoint of a cited sentence).
    """

    char_start: int
    char_end: int
    heading: str
    page_start: int | None
    page_end: int | None
    words: int = 0
    heading_path: tuple[str, ...] = ()
    sections: tuple[tuple[int, tuple[str, ...]], ...] = ()


@dataclass(slots=True)
class _Unit:
    start: int
    end: int
    words: int
    score: int  # how good a cut just before this unit is
    heading: str  # heading in force at this unit
    is_heading: bool
    index: int = 0
    path: tuple[str, ...] = ()  # enclosing headings, outermost first, ending with heading


def chunk_id_for(document_sha256: str, char_start: int, char_end: int) -> str:
    """Stable chunk id: the first 12 hex characters of
    ``sha256(f"{document_sha256}:{char_start}:{char_end}")``.

    The same file chunked the same way gets the same ids on every ingest (DESIGN.md §3).
    """
    digest = hashlib.sha256(f"{document_sha256}:{char_start}:{char_end}".encode()).hexdigest()
    return digest[:12]


def chunk_text(
    text: str,
    page_starts: list[int] | None = None,
    *,
    min_words: int = DEFAULT_MIN_WORDS,
    max_words: int = DEFAULT_MAX_WORDS,
    overlap_words: int = DEFAULT_OVERLAP_WORDS,
) -> list[ChunkSpan]:
    """Cut ``text`` into chunks that follow its sections (see the module docstring).

    ``page_starts``: character offset where each page begins (page 1 first), as
    :func:`retrieval.extract.extract_text` returns for PDFs; ``None`` for no pages.
    Sizes are in words: a chunk holds at most ``max_words`` (a single over-long
    sentence is cut into word windows), at least ``min_words`` unless its section (and
    its small neighbours) or the document is shorter; consecutive chunks of one section
    share up to ``overlap_words`` words. Returns spans in text order; an empty or
    whitespace-only text gives ``[]``. Raises ``ValueError`` for inconsistent sizes.
    """
    if not (0 < min_words <= max_words) or not (0 <= overlap_words < min_words):
        raise ValueError(
            "chunk sizes need 0 < min_words <= max_words and 0 <= overlap_words < min_words"
        )
    units = _units(text, max_words, split_words=max(overlap_words, 30))
    spans: list[ChunkSpan] = []
    last_emitted = -1

    def emit(group: list[_Unit]) -> None:
        nonlocal last_emitted
        if not group or group[-1].index <= last_emitted:
            return  # only repeated overlap: nothing new to say
        last_emitted = group[-1].index
        heading = _main_heading(group)
        path = next((u.path for u in group if u.heading == heading), ()) if heading else ()
        start, end = group[0].start, group[-1].end
        spans.append(
            ChunkSpan(
                char_start=start,
                char_end=end,
                heading=heading,
                page_start=_page_of(page_starts, start),
                page_end=_page_of(page_starts, end - 1),
                words=sum(u.words for u in group),
                heading_path=path,
                sections=_sections(group),
            )
        )

    current: list[_Unit] = []
    current_words = 0
    for unit in units:
        if current and unit.is_heading:
            if current_words >= min_words:
                emit(current)
                current, current_words = [], 0
            elif current[-1].index <= last_emitted:
                current, current_words = [], 0  # only an overlap tail: not before a new section
        while current and current_words + unit.words > max_words:
            cut = _best_cut(current, unit, min_words, last_emitted)
            emit(current[:cut])
            following = current[cut] if cut < len(current) else unit
            tail = [] if following.is_heading else _overlap_tail(current[:cut], overlap_words)
            current = tail + current[cut:]
            current_words = sum(u.words for u in current)
            if current and current[-1].index <= last_emitted:
                # Only overlap is left: keep it only if the incoming unit fits beside it.
                if current_words + unit.words > max_words:
                    current, current_words = [], 0
                break
        current.append(unit)
        current_words += unit.words
    emit(current)
    return spans


def span_sections(span: ChunkSpan) -> list:
    """``span.sections`` as ``Chunk.sections`` stores it (JSON): ``[[offset, [heading,
    …]], …]``."""
    return [[offset, list(path)] for offset, path in span.sections]


def _sections(group: list[_Unit]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """``ChunkSpan.sections`` of a chunk's units: where the heading path changes."""
    marks: list[tuple[int, tuple[str, ...]]] = []
    for unit in group:
        if not marks or unit.path != marks[-1][1]:
            marks.append((unit.start - group[0].start, unit.path))
    return tuple(marks) if len(marks) > 1 else ()


def _main_heading(group: list[_Unit]) -> str:
    """The heading of the first section in the chunk with real content (at least
    ``min(30 words, a fifth of the chunk)``), so packed sections are named by the first
    and a chunk that opens with a bare title line or a short preamble by what follows."""
    totals: dict[str, int] = {}
    for unit in group:
        if unit.heading:
            totals[unit.heading] = totals.get(unit.heading, 0) + unit.words
    if not totals:
        return ""
    threshold = min(30, 0.2 * sum(u.words for u in group))
    for heading, count in totals.items():  # dicts keep first-seen order
        if count >= threshold:
            return heading
    return max(totals, key=lambda h: totals[h])


def _best_cut(current: list[_Unit], incoming: _Unit, min_words: int, last_emitted: int) -> int:
    """Where to cut ``current`` (an index; ``len(current)`` cuts before ``incoming``).

    The best-scored boundary that leaves at least ``min_words`` and some new text before
    it, the latest among equals; if there is none, everything before ``incoming``.
    """
    best, best_key = len(current), None
    words = 0
    for i, unit in enumerate(current):
        if i > 0 and words >= min_words and current[i - 1].index > last_emitted:
            key = (unit.score, i)
            if best_key is None or key > best_key:
                best, best_key = i, key
        words += unit.words
    if words >= min_words and (best_key is None or (incoming.score, len(current)) >= best_key):
        best = len(current)
    return best


def _overlap_tail(emitted: list[_Unit], overlap_words: int) -> list[_Unit]:
    """The last whole sentences of ``emitted`` holding at most ``overlap_words`` words."""
    if overlap_words <= 0:
        return []
    tail: list[_Unit] = []
    words = 0
    for unit in reversed(emitted):
        if unit.is_heading or words + unit.words > overlap_words:
            break
        tail.append(unit)
        words += unit.words
    tail.reverse()
    # Start the repeat at a sentence start, never mid-sentence.
    while tail and tail[0].score < _SENTENCE:
        tail.pop(0)
    return tail


def _page_of(page_starts: list[int] | None, offset: int) -> int | None:
    if page_starts is None:
        return None
    return max(1, bisect.bisect_right(page_starts, max(offset, 0)))


def _units(text: str, max_words: int, split_words: int) -> list[_Unit]:
    """Lines (long ones cut into sentences, over-long sentences into word windows),
    each with the heading in force and the score of a cut just before it."""
    units: list[_Unit] = []
    heading = ""
    path: tuple[str, ...] = ()
    open_headings: list[tuple[tuple[int, int, int, int], str]] = []  # (rank, heading), outermost first
    previous_end = 0
    previous_ended_sentence = True
    window = max(10, max_words // 2)
    for match in _NONEMPTY_LINE_RE.finditer(text):
        raw = match.group()
        stripped = raw.strip()
        if not stripped:
            continue  # whitespace-only line: counts as blank through the gap below
        start = match.start() + (len(raw) - len(raw.lstrip()))
        end = start + len(stripped)
        gap = text[previous_end:start]
        previous_blank = not units or gap.count("\n") >= 2
        previous_end = end
        words = len(stripped.split())
        titles_section = previous_blank and _SECTION_FOLLOWS_RE.match(text, end) is not None
        kind = _classify(stripped, words, titles_section=titles_section)
        if kind == _HEADING:
            heading = _heading_text(stripped)
            rank = heading_rank(stripped)
            while open_headings and open_headings[-1][0] >= rank:
                open_headings.pop()
            open_headings.append((rank, heading))
            path = tuple(h for _, h in open_headings[-MAX_PATH_DEPTH:])
            score = _HEADING
        elif previous_blank:
            score = _PARAGRAPH
        elif kind == _CLAUSE:
            score = _CLAUSE
        elif previous_ended_sentence:
            score = _SENTENCE
        else:
            score = _WRAP
        previous_ended_sentence = stripped[-1] in ".!?:;\"”’)]"
        is_heading = kind == _HEADING
        if words <= split_words:
            units.append(_Unit(start, end, words, score, heading, is_heading, path=path))
            continue
        first = True
        for s_start, s_end in _sentences(text, start, end):
            n = len(text[s_start:s_end].split())
            lead_score = score if first else _SENTENCE
            if n <= window:
                units.append(_Unit(s_start, s_end, n, lead_score, heading, is_heading and first,
                                   path=path))
            else:  # an over-long "sentence" (a table, a list without stops): word windows
                spans = [m.span() for m in _WORD_RE.finditer(text, s_start, s_end)]
                for w in range(0, len(spans), window):
                    piece = spans[w : w + window]
                    units.append(_Unit(piece[0][0], piece[-1][1], len(piece),
                                       lead_score if w == 0 else _WORDS, heading,
                                       is_heading and first and w == 0, path=path))
            first = False
    for i, unit in enumerate(units):
        unit.index = i
    return units


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans within ``text[start:end]`` (one line), by regex with an
    abbreviation guard ("U.S.C.", "Sec.", "No." do not end sentences)."""
    spans: list[tuple[int, int]] = []
    begin = start
    for m in _SENTENCE_END_RE.finditer(text, start, end):
        period = m.start()
        # The word before the stop: back from it to a space. A search forward from the
        # sentence's start read the sentence again at each abbreviation it holds.
        word_start = period
        while word_start > begin and not text[word_start - 1].isspace():
            word_start -= 1
        if word_start < period:
            word = text[word_start:period].lstrip("(\"'“[").lower()
            if (
                len(word) <= 1
                or word in _ABBREVIATIONS
                or _DOTTED_ABBREVIATION_RE.fullmatch(word)
            ):
                continue
        stop = m.end()
        trimmed = stop
        while trimmed > begin and text[trimmed - 1].isspace():
            trimmed -= 1
        spans.append((begin, trimmed))
        begin = stop
    if begin < end:
        spans.append((begin, end))
    return spans


def _classify(line: str, words: int, *, titles_section: bool = False) -> int:
    """``_HEADING``, ``_CLAUSE`` or ``_SENTENCE`` (plain text) for one stripped line;
    ``titles_section``: it stands between blank lines right before a ``§`` heading."""
    if _HEADING_ANY_LENGTH_RE.match(line):
        return _HEADING
    if titles_section and words <= _TITLE_LINE_WORDS and _is_title_line(line):
        return _HEADING  # "Affiliate Marketing": a CFR subpart's title
    if words <= _SHORT_HEADING_WORDS:
        if _HEADING_SHORT_RE.match(line) and line[-1] not in ",;":
            return _HEADING
        if (
            len(line) >= 4
            and not _LOWER_RE.search(line)
            and len(_UPPER_RE.findall(line)) >= 4
            and line[-1] not in ",;"
        ):
            return _HEADING  # ALL-CAPS title line: "CALL TO ORDER", "DEFINITIONS"
    if _CLAUSE_RE.match(line):
        return _CLAUSE
    return _SENTENCE


def _is_title_line(line: str) -> bool:
    """Whether a short line is a title: title case ("Requirements for Remittance
    Transfers"; the minor words of :data:`ciq.text.TITLE_MINOR_WORDS` in lower case), no stop."""
    if not _TITLE_LINE_RE.fullmatch(line):
        return False
    words = line.replace(",", "").split()
    return all(word[0].isupper() or word in TITLE_MINOR_WORDS or word == "&" for word in words)


_MARKDOWN_LEVEL_RE = re.compile(r"^(#{1,6})\s")
_QUOTE_MARK_RE = re.compile(r"^>\s*")
# A bold label followed by its section's text on the same line.
_RUN_IN_LABEL_RE = re.compile(r"^(?:>\s*)?(?:\*\*|__)([^*_]{1,120}?)(?:\*\*|__)\s*[^\s*_]")
_DIVISION_RANK_RE = re.compile(
    r"^(?:\*\*|__)?(?:(PART|TITLE|CHAPTER|ARTICLE|APPENDIX|SUPPLEMENT|SCHEDULE|EXHIBIT|ANNEX)"
    r"|(SUBPART|SUBCHAPTER))\s+\S", re.IGNORECASE)
_SECTION_RANK_RE = re.compile(
    r"^(?:\*\*|__)?(?:§{1,2}\s*\d|(?:SECTION|Section|SEC\.|Sec\.)\s+\S|\d{1,4}[A-Z]?\.\d{3,4}\s)")
_DOTTED_RANK_RE = re.compile(r"^(?:\*\*|__)?\d{1,3}((?:\.\d{1,3}){1,3})\.?\s")
_ITEM_RANK_RE = re.compile(r"^(?:\*\*|__)?(?:([A-Z])|(\d{1,2})|([IVXL]{1,5}))[.)]\s")
_PAREN_RANK_RE = re.compile(r"^(?:\*\*|__)?\((?:[A-Za-z]{1,2}|\d{1,2}|[ivxl]{1,5})\)")


def heading_rank(line: str) -> tuple[int, int, int, int]:
    """How high a heading line sits in its document: a smaller rank encloses a larger.

    A 4-tuple. Markdown headings come first, by their ``#`` count, then by the kind of
    their text (``### Section 5.100`` encloses ``### (A) AUTHORITY``); other heading
    lines follow every Markdown heading, by kind. Kinds, outermost first: part, title,
    chapter, article, appendix, supplement, schedule, exhibit, annex (1, 0); subpart
    and subchapter (1, 1); any other title line (ALL-CAPS, bold) (2, 0); a section
    (``§ 1006.8``, ``Section 4``, ORS ``837.380``) (3, 0); a dotted number (``10.7``
    (3, 1), ``10.7.1`` (3, 2)); a lettered item ``A.`` (4, 0), a roman one ``IV.``
    (4, 0), a numbered one ``1.`` (4, 1); a parenthesised ``(a)`` (4, 2). The order
    follows how US codes and contracts nest (part › section › A. › 1. › (a)); a
    document that nests otherwise gets a flatter path, never a wrong section number,
    because the pinpoint cites the innermost heading that names a section.
    """
    markdown = _MARKDOWN_LEVEL_RE.match(line)
    if markdown:
        return (0, len(markdown.group(1)), *_kind_rank(line[markdown.end():].lstrip()))
    return (1, *_kind_rank(_QUOTE_MARK_RE.sub("", line.lstrip())), 0)


def _kind_rank(text: str) -> tuple[int, int]:
    division = _DIVISION_RANK_RE.match(text)
    if division:
        return (1, 0) if division.group(1) else (1, 1)
    if _SECTION_RANK_RE.match(text):
        return (3, 0)
    dotted = _DOTTED_RANK_RE.match(text)
    if dotted:
        return (3, dotted.group(1).count("."))
    item = _ITEM_RANK_RE.match(text)
    if item:
        return (4, 1) if item.group(2) else (4, 0)
    if _PAREN_RANK_RE.match(text):
        return (4, 2)
    return (2, 0)


def _heading_text(line: str) -> str:
    """Heading line without Markdown markup; a bold label that runs into its body
    ("**Section 2.** Ordinance No. 70-2001 is amended …") is the label; a long line (a
    heading followed by its body, as in ORS) is cut after its first sentence, then to
    200 characters."""
    run_in = _RUN_IN_LABEL_RE.match(line)
    if run_in:
        return " ".join(run_in.group(1).split())
    heading = _HEADING_MARKUP_RE.sub("", line).strip()
    heading = " ".join(_HEADING_MARKUP_RE.sub("", heading).split())
    if len(heading) > 100:
        match = _FIRST_SENTENCE_RE.match(heading)
        if match and len(match.group(1)) <= MAX_HEADING_CHARS:
            return match.group(1)
    if len(heading) > MAX_HEADING_CHARS:
        heading = heading[: MAX_HEADING_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return heading
