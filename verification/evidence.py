"""Text preparation of evidence: tokens and comparison terms, sentence splitting, numbers
with their units (:class:`Quantity`), and :func:`prepare_chunk`, which splits and indexes one
evidence chunk (cached per chunk text). The claim analysis uses the same tokens and terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ciq.text import STOPWORDS, TOKEN_RE, stem, token_folded
from verification.lexicon import (
    IRREGULAR_FORMS,
    LOWER_BOUNDS,
    MODAL_PLAIN,
    NUMBER_WORDS,
    PHRASES,
    QUANTIFIERS,
    UPPER_BOUNDS,
    canonical,
)

# --------------------------------------------------------------------------------------
# Text analysis shared by claims and evidence


@dataclass(frozen=True)
class Quantity:
    """A number with its unit: ``value`` as float, ``unit`` in day/month/minute/usd/pct/
    year_date/times (a multiple: "two or more times the minimum lot size") or "" for a
    bare number; ``text`` as written. Periods are in the smallest unit that states them
    exactly (:data:`IN_SMALLER`): "two years" is 24 months, "2 weeks" 14 days; ``per`` is
    the factor applied (12 for "two years", else 1), so ``value / per`` is the number written."""

    value: float
    unit: str
    text: str
    per: float = 1.0


_UNIT = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "year": "year", "years": "year", "hour": "hour", "hours": "hour",
    "minute": "minute", "minutes": "minute", "%": "pct", "percent": "pct", "per cent": "pct",
    "times": "times",
}
# A period in a larger unit, in the smaller one that divides it exactly (a month is no
# fixed number of days, so days and months stay apart): larger unit -> (smaller, factor).
IN_SMALLER = {"year": ("month", 12.0), "week": ("day", 7.0), "hour": ("minute", 60.0)}
_NUMWORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
QUANTITY_RE = re.compile(
    r"(?P<usd>\$\s?)?"
    r"(?P<num>\d[\d,]*(?:\.\d+)?"
    rf"|\b(?:{_NUMWORD})(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?\b)"
    r"(?:\s*\(\s*\d[\d,]*\s*\))?"
    r"(?:\s*(?P<mult>million|billion|thousand)\b)?"
    # "30 or more days", "two or more times": a bound between the number and its unit.
    r"(?:\s*(?:or\s+(?:more|less|fewer)\s+)?(?:calendar|business|working|consecutive)?\s*"
    r"(?P<unit>%|percent\b|per cent\b|days?\b|weeks?\b|months?\b|years?\b|hours?\b|minutes?\b"
    r"|times\b))?",
    re.IGNORECASE,
)
_MULT = {"thousand": 1e3, "million": 1e6, "billion": 1e9}


def _number_value(text: str) -> float | None:
    text = text.lower().replace(",", "")
    try:
        return float(text)
    except ValueError:
        pass
    parts = re.split(r"[\s-]+", text)
    if all(p in NUMBER_WORDS for p in parts):
        return float(sum(NUMBER_WORDS[p] for p in parts))
    return None


TIME_RE = re.compile(r"\b(\d{1,2}):(\d{2})\s*(a\.?m\.?|p\.?m\.?)?", re.IGNORECASE)


def quantities(text: str) -> tuple[Quantity, ...]:
    """Numbers in ``text`` with units (money, percentages, durations, calendar years, times
    of day as minutes after midnight with unit "time")."""
    found: list[Quantity] = []
    for m in TIME_RE.finditer(text):
        hours, minutes = int(m.group(1)) % 12 if m.group(3) else int(m.group(1)), int(m.group(2))
        if m.group(3) and m.group(3).lower().startswith("p"):
            hours += 12
        found.append(Quantity(float(hours * 60 + minutes), "time", m.group().strip()))
    text = TIME_RE.sub(lambda m: " " * len(m.group()), text)
    for m in QUANTITY_RE.finditer(text):
        value = _number_value(m.group("num"))
        if value is None:
            continue
        unit = ""
        if m.group("usd"):
            unit = "usd"
        elif m.group("unit"):
            unit = _UNIT[m.group("unit").lower()]
        elif m.group("num").isdigit() and len(m.group("num")) == 4 and 1700 <= value <= 2100:
            unit = "year_date"
        if m.group("mult"):
            value *= _MULT[m.group("mult").lower()]
        per = 1.0
        if unit in IN_SMALLER:
            unit, per = IN_SMALLER[unit]
        # "one" as a pronoun ("one of the parties") is not a quantity.
        if not unit and not m.group("num")[0].isdigit():
            continue
        found.append(Quantity(value * per, unit, m.group().strip(), per))
    return tuple(found)


_ZERO_CENTS_RE = re.compile(r"\.0+$")


def period_terms(found: Sequence[Quantity]) -> frozenset[str]:
    """The number and unit terms of each period of ``found`` in every unit that states it
    in whole numbers: "24 months" also reads "2" "year", "14 days" "2" "week", so a claim
    that says "two years" finds its words (unit conversion, not a synonym: "24 months" is
    not "two months")."""
    out: set[str] = set()
    for q in found:
        for larger, (smaller, factor) in IN_SMALLER.items():
            whole = q.value / factor
            if q.unit == smaller and whole == int(whole) and whole > 0:
                out |= {str(int(whole)), larger, str(int(q.value)), smaller}
    return frozenset(t for t in (token_term(w) for w in out) if t)


def token_term(token: str) -> str | None:
    """The comparison term of one lowercase token, or None for stopwords and noise."""
    if token[0].isdigit():
        # "$20.00" states the amount "$20" does; "1006.30" stays a section number.
        return _ZERO_CENTS_RE.sub("", token.replace(",", ""))
    if token in NUMBER_WORDS:
        return str(NUMBER_WORDS[token])
    if token.endswith(("'s", "’s")):
        token = token[:-2]
    if token in STOPWORDS or token in MODAL_PLAIN or token in QUANTIFIERS or len(token) < 2:
        return None
    return canonical(stem(IRREGULAR_FORMS.get(token, token)))


@dataclass(frozen=True)
class _PhraseTable:
    """Phrases read as one term: ``terms`` maps a phrase's keys (lowercase words or their
    stems) to its term (None: no term); ``lengths`` are its phrase lengths, longest first."""

    terms: dict[tuple[str, ...], str | None]
    lengths: tuple[int, ...]
    firsts: frozenset[str]      # the phrases' first keys: other positions are skipped

    @classmethod
    def of(cls, terms: dict[tuple[str, ...], str | None]) -> _PhraseTable:
        return cls(terms, tuple(sorted({len(p) for p in terms}, reverse=True)),
                   frozenset(p[0] for p in terms))

    def spans(self, keys: Sequence[str], taken: frozenset[int] = frozenset()
              ) -> list[tuple[int, int]]:
        """``[(start, length), ...]`` of the phrases in ``keys`` (one key per token),
        longest phrase first at each position, none over a ``taken`` token."""
        found, i = [], 0
        while i < len(keys):
            size = self._longest_at(keys, i, taken)
            if size:
                found.append((i, size))
            i += max(size, 1)
        return found

    def _longest_at(self, keys: Sequence[str], i: int, taken: frozenset[int]) -> int:
        """The length of the longest phrase starting at ``keys[i]`` (0 for none)."""
        if keys[i] not in self.firsts:
            return 0
        return next((n for n in self.lengths if i + n <= len(keys)
                     and tuple(keys[i : i + n]) in self.terms
                     and taken.isdisjoint(range(i, i + n))), 0)


def _word_stems(tokens: Sequence[str]) -> tuple[str, ...]:
    """Keys of lowercase tokens for matching phrases: a stopword as itself, a number word as
    its digits, any other word as its Porter stem after its irregular form ("held" as
    "hold"). Porter stems "one" as "on", so "one time" would read as "on time"."""
    return tuple(_word_key(t) for t in tokens)


@lru_cache(maxsize=65536)
def _word_key(token: str) -> str:
    if token in STOPWORDS:
        return token
    if token in NUMBER_WORDS:
        return str(NUMBER_WORDS[token])
    return stem(IRREGULAR_FORMS.get(token, token))


# Bounds, keyed on their words: an upper bound has no term, a lower bound that of "least".
_BOUNDS = _PhraseTable.of(
    dict.fromkeys((tuple(p.split()) for p in UPPER_BOUNDS), None)
    | dict.fromkeys((tuple(p.split()) for p in LOWER_BOUNDS), token_term("least"))
)
# PHRASES keyed on their words' stems, each with the term of the word it stands for.
_PHRASES = _PhraseTable.of(
    {_word_stems(p.split()): token_term(word) if word else None for p, word in PHRASES}
)


def tokens_terms(tokens: Sequence[str]) -> list[str | None]:
    """The comparison terms of a sequence of lowercase tokens (:func:`token_term` of each),
    with a bound read as one term whatever its words (:data:`~verification.lexicon.UPPER_BOUNDS`):
    "no later than 30 days" as "within 30 days", "no less than 6 inches" as "at least 6
    inches", and a phrase of :data:`~verification.lexicon.PHRASES` as the word it stands
    for ("held on to the records" as "retained the records"). The phrase's term stands on
    its first token, its other tokens have none."""
    out = [token_term(t) for t in tokens]
    found, more, stems = _phrases_in(tokens)
    for i, size in found:
        out[i : i + size] = [_BOUNDS.terms[tuple(tokens[i : i + size])]] + [None] * (size - 1)
    for i, size in more:
        out[i : i + size] = [_PHRASES.terms[stems[i : i + size]]] + [None] * (size - 1)
    return out


def _phrases_in(tokens: Sequence[str]
                ) -> tuple[list[tuple[int, int]], list[tuple[int, int]], tuple[str, ...]]:
    """The ``(start, length)`` spans of the bounds and of the other phrases among lowercase
    ``tokens`` (a phrase never overlaps a bound), and the tokens' stems."""
    found = bounds(tokens)
    stems = _word_stems(tokens)
    return found, _PHRASES.spans(stems, _covered(found)), stems


def bounds(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """``[(start, length), ...]`` of the bound phrases among lowercase ``tokens``, longest
    phrase first at each position ("no later than", "at least")."""
    return _BOUNDS.spans(tokens)


def phrase_positions(tokens: Sequence[str]) -> frozenset[int]:
    """Indices of the lowercase ``tokens`` inside a phrase of
    :data:`~verification.lexicon.PHRASES` (not a bound): words read as one term, whose
    "without" negates nothing ("without authorization")."""
    _, more, _ = _phrases_in(tokens)
    return _covered(more)


def outside_phrases(tokens: Sequence[str]) -> list[str]:
    """``tokens`` without the words of their bounds and other phrases: the "no" of "no
    later than" and the "without" of "without authorization" negate nothing."""
    found, more, _ = _phrases_in(tokens)
    inside = _covered(found + more)
    return [t for j, t in enumerate(tokens) if j not in inside]


def _covered(spans: Sequence[tuple[int, int]]) -> frozenset[int]:
    return frozenset(j for i, size in spans for j in range(i, i + size))


def token_offsets(text: str) -> list[tuple[str, int]]:
    """``[(folded token, character offset), ...]`` of ``text``, in order
    (:func:`ciq.text.token_folded`)."""
    return [(token_folded(m.group()), m.start()) for m in TOKEN_RE.finditer(text)]


# --------------------------------------------------------------------------------------
# Evidence preparation (cached per chunk text)

_ABBREV = frozenset(
    """u.s.c u.s inc no nos sec secs co corp ltd llc e.g i.e etc v vs mr mrs ms dr art para
    paras st cf fig jan feb mar apr jun jul aug sep sept oct nov dec seq subd ch pp p al
    approx dept govt ord res rev stat""".split()
)
_BOUNDARY_RE = re.compile(
    r"(?<=[.!?;])[\"'”’)*_]*\s+(?=[*_>\"'“‘(\[]*[A-Z0-9§])"   # end mark, then a capital
    r"|(?<=[.!?;])[\"'”’)*_]*\s+(?=(?:[-–•]\s+)?\(?[a-z0-9]{1,4}\)\s*[A-Z(])"  # then "(b) The"
    r"|(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])"                          # "Shivaji.Pune" (joined text)
    r"|(?<=[.;:!?])[\"'”’)*_]*[ \t]*\n"                             # line ending a sentence
    r"|\n\s*\n"                                                    # blank line
    r"|\n(?=[\s>]*(?:[-*•]|\(?[a-z0-9]{1,3}[.)])\s)"                # list item
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Fast regex sentence/clause spans for evidence text: ``[(start, end), ...]``.

    Cheaper than pysbd (which costs ~4 ms per 1,000 characters) and adequate for matching:
    splits after . ! ? ; before a capital, digit, "§" or "(", on blank lines and before list
    items, but not after legal abbreviations ("U.S.C.", "Sec.", "No.") or single initials.
    Semicolons split too: long statutory sentences are scored clause by clause and the
    Judge's windows of adjacent units recover sentences that span clauses.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY_RE.finditer(text):
        cut = m.start()
        before = text[start:cut].rstrip()
        if before.endswith("."):
            # an initial or an abbreviation, not the "s" of "Logan's."
            last = re.search(r"(?<![\w'’])([A-Za-z.]+)\.$", before)
            if last and (last.group(1).lower() in _ABBREV or len(last.group(1)) == 1):
                continue
        if before:
            spans.append((start, start + len(before)))
        start = m.end()
    tail = text[start:].rstrip()
    if tail:
        spans.append((start, start + len(tail)))
    # Drop leading whitespace of each span.
    cleaned = []
    for s, e in spans:
        while s < e and (text[s].isspace() or text[s] in ">*_#"):
            s += 1
        if e > s:
            cleaned.append((s, e))
    return cleaned


@dataclass
class Sentence:
    """One evidence sentence: its span in the chunk, tokens with their terms, and the
    quantities it states."""

    start: int
    end: int
    tokens: list[tuple[str, int]]           # (lowercase token, offset in sentence)
    terms: list[str | None]                 # aligned with tokens
    caps: list[bool]                        # token starts with a capital (a defined term?)
    quantities: tuple[Quantity, ...]
    clause: list[int]                       # clause id per token (split at ; and :)
    inherited: frozenset[str] = frozenset() # terms of the list lead-in ("… does not include:")
    periods: frozenset[str] = frozenset()   # its periods in other units (period_terms)
    lead: tuple[int, int] | None = None     # the lead-in's span in the chunk, for an item

    @property
    def all_terms(self) -> set[str]:
        return {t for t in self.terms if t} | self.inherited | self.periods


@dataclass
class PreparedChunk:
    """Sentences of one chunk with their terms; ``index`` maps term -> bool array over
    sentences. Built once per chunk text by :func:`prepare_chunk`."""

    text: str
    sentences: list[Sentence]
    index: dict[str, np.ndarray] = field(default_factory=dict)


def _clause_ids(text: str, tokens: list[tuple[str, int]]) -> list[int]:
    ids, clause, last = [], 0, 0
    for _, off in tokens:
        clause += len(re.findall(r"[;:]", text[last:off]))
        last = off
        ids.append(clause)
    return ids


@lru_cache(maxsize=4096)
def prepare_chunk(text: str) -> PreparedChunk:
    """Split and index one evidence chunk (cached on the text; safe to call per request).

    Items of an enumerated list inherit the terms of the lead-in that ends with ":" ("The
    obligations shall not apply to information that: (a) …; (b) …"), so an item is matched
    together with the sentence it completes, and keep the lead-in's span
    (``Sentence.lead``), whose negation and modal verb govern the item.
    """
    sentences: list[Sentence] = []
    lead: frozenset[str] = frozenset()
    lead_span: tuple[int, int] | None = None
    for s, e in split_sentences(text):
        body = text[s:e]
        toks = token_offsets(body)
        terms = tokens_terms([t for t, _ in toks])
        found = quantities(body)
        sentences.append(
            Sentence(s, e, toks, terms, [body[off].isupper() for _, off in toks],
                      found, _clause_ids(body, toks), lead, period_terms(found), lead_span)
        )
        tail = body.rstrip()[-1:]
        if tail == ":":
            lead, lead_span = frozenset(t for t in terms if t), (s, e)
        elif tail in ".!?" and not re.search(r"\b(?:and|or)$", body.rstrip(" .")):
            lead, lead_span = frozenset(), None
    index: dict[str, np.ndarray] = {}
    n = len(sentences)
    for i, sent in enumerate(sentences):
        for term in sent.all_terms:
            arr = index.get(term)
            if arr is None:
                arr = index[term] = np.zeros(n, dtype=bool)
            arr[i] = True
    return PreparedChunk(text, sentences, index)
