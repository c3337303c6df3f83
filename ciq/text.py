"""Text primitives shared by retrieval and verification: tokens, stems, stopwords, sentences.

One tokenizer serves the index's similarity normalisation, the Writer's sentence scoring,
the Skeptic and the Judge, so "the same word" means the same thing everywhere. Stems use
the original Porter algorithm (snowballstemmer's ``porter``), the one SQLite FTS5's
``porter`` tokenizer applies, so Python-side terms line up with the index's vocabulary.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import pysbd
import snowballstemmer

# Words (with inner apostrophes/hyphens kept apart), numbers with separators and decimals.
TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:'[^\W\d_]+)?", re.UNICODE)

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also may must shall upon within without per via whether
    consider regarding provided provide provides document documents
    """.split()
)
# Words that ask for a kind of output ("Draft a memo on ...") rather than name a topic:
# left out of queries, or "draft" would match "a draft or similar instrument".
INSTRUCTION_WORDS = frozenset(
    """
    draft drafting memo memorandum write prepare summarize summarise summary explain
    describe outline list tell please brief briefing note report answer question
    """.split()
)

# The words a title leaves in lower case ("Requirements for Remittance Transfers").
TITLE_MINOR_WORDS = frozenset("a an and as at by for from in of on or the to with".split())

_stemmer = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Porter stem of one lowercase word (cached: the vocabulary is small)."""
    return _stemmer.stemWord(word)


# A zoning district's code as ordinances write it: a class letter or two, a hyphen, and a
# number or a letter group ("R-1", "R-1A", "B-2", "I-1", "R-MHP", "R-A"). Capitals only,
# so "a 2-story house" or "e-mail" is none.
DISTRICT_CODE_RE = re.compile(r"(?<![\w-])([A-Z]{1,2}-(?:\d{1,2}[A-Z]?|[A-Z]{1,3}))(?![\w-])")


def text_folded(text: str) -> str:
    """``text`` in Unicode compatibility form (NFKC) when it is not ASCII: the typesetter's
    ligature "conﬁdential" is "confidential", a full-width "Ａ" an "A". A chunk keeps its
    characters, so offsets into a document never move; its tokens (:func:`token_folded`)
    and the lexical index's copy of its text (``retrieval.fts``) are folded."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def token_folded(token: str) -> str:
    """One token as every comparison reads it: lower case, :func:`text_folded`."""
    return text_folded(token.lower())


def tokenize(text: str) -> list[str]:
    """Folded word and number tokens of ``text`` (:func:`token_folded`), in order
    (stopwords kept)."""
    return [token_folded(t) for t in TOKEN_RE.findall(text)]


def content_terms(text: str) -> list[str]:
    """Porter stems of the non-stopword tokens of ``text``, in order, duplicates kept."""
    return [stem(t) for t in tokenize(text) if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]


# Abbreviations of legal citations and party names that pysbd takes for a sentence end
# ("… standards of Ord. #70-2001 (G.9)", "Sec. 4", "Acme Inc. and …"): a piece ending
# with one is joined to the next.
LEGAL_ABBREVIATIONS = frozenset("""
    ord ords no nos sec secs art arts ch chs res subsec subd para paras cl cls reg regs stat
    stats admin rev dept gov inc co corp ltd llc bros cf e.g i.e v vs st ave approx exh ex
    """.split())
_ABBREVIATION_END_RE = re.compile(r"(?:^|[\s(])([A-Za-z.]{1,6})\.$")


def _ends_with_abbreviation(piece: str) -> bool:
    m = _ABBREVIATION_END_RE.search(piece.rstrip())
    return bool(m) and m.group(1).lower().rstrip(".") in LEGAL_ABBREVIATIONS


# pysbd takes the second label of a pinpoint ("subsection (2)(a) of this section") for a
# list item that starts a sentence; a piece that ends mid-sentence (a word, a number or a
# closing parenthesis, no final punctuation) is continued on the same line by such a label
# when another label or a lowercase word follows it ("(a)(1)", "(a) of this section"); a
# label before a capital ("(1) The owner …") starts an item.
_OPEN_END_RE = re.compile(r"[\w)]$")
# A list label alone ("7.", "a.", "(iii)"), which pysbd cuts off when wide spacing follows
# it ("7.        No fence shall …"): it belongs to the next piece.
_BARE_LABEL_RE = re.compile(r"\(?(?:[0-9]{1,3}|[a-zA-Z]|[ivxlcIVXLC]{1,5})[.)]"
                            r"|\((?:[0-9]{1,3}|[a-zA-Z]|[ivxlc]{1,5})\)")
_LABEL_START_RE = re.compile(r"\((?:[a-z]{1,2}|[0-9]{1,3}|[ivxlc]{1,5}|[A-Z])\)(?:\(|\s+[a-z])")


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False, char_span=True)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries of ``text`` as ``[(start, end), ...]`` character offsets.

    pysbd (Sadvilkar & Neumann 2020, "PySBD: Pragmatic Sentence Boundary Disambiguation")
    handles legal abbreviations such as "U.S.C." and "§ 1.2"; spans exclude the trailing
    whitespace pysbd attaches. Paragraph breaks (blank lines) always end a sentence. A
    piece that ends with one of :data:`LEGAL_ABBREVIATIONS` ("Ord.", "Sec.", "Inc.") or is
    a list label alone ("7.", "(a)") is joined to the next piece of the same paragraph,
    and so is a piece that ends mid-sentence
    when the next one continues the line with a label ("subsection (2)" + "(a) of this
    section …").
    """
    spans: list[tuple[int, int]] = []
    for block in re.finditer(r"\S(?:.*?\S)?(?=\n\s*\n|\s*\Z)", text, re.DOTALL):
        offset = block.start()
        joined = False
        for piece in _segmenter().segment(block.group()):
            start, end = offset + piece.start, offset + piece.end
            while end > start and text[end - 1].isspace():
                end -= 1
            while start < end and text[start].isspace():
                start += 1
            if end <= start:
                continue
            if spans and not joined and "\n" not in text[spans[-1][1]:start]:
                joined = (bool(_OPEN_END_RE.search(text[spans[-1][0]:spans[-1][1]]))
                          and bool(_LABEL_START_RE.match(text, start)))
            if joined and spans:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
            last = text[spans[-1][0]:spans[-1][1]]
            joined = _ends_with_abbreviation(last) or bool(_BARE_LABEL_RE.fullmatch(last))
    return spans


# Markdown left in document text: emphasis and strike markers (``**``, ``__``, ``~~``,
# a ``*``/``_`` opening or closing a word, with debris like ``d.**`` from a window cut
# mid-markup), inline-code backticks, heading hashes and quote marks at a line start.
_LINE_MARKUP_RE = re.compile(r"^[ \t]{0,3}(?:#{1,6}(?:[ \t]+|$)|>[ \t]?)", re.M)
_PAIRED_MARKERS_RE = re.compile(r"\*\*+|__+|~~|`+")
_SINGLE_MARKER_RE = re.compile(r"(?<![\w*])[*_](?=[^\s*_])|(?<=[^\s*_])[*_](?![\w*])")


def markdown_plain(text: str) -> str:
    """``text`` (chunk text, an evidence snippet, a claim) on one line without Markdown
    markup: emphasis markers, backticks, heading hashes and quote marks removed, so a
    snippet reads "d. The dock …" rather than "d.** The dock …". ``*`` and ``_`` inside
    a word (``snake_case``) or between spaces (``5 * 3``) stay. The one helper for the
    page, the admin and every export format."""
    text = _LINE_MARKUP_RE.sub("", text or "")
    text = _SINGLE_MARKER_RE.sub("", _PAIRED_MARKERS_RE.sub("", text))
    return " ".join(text.split())

