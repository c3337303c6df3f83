"""Deterministic Judge: verify one claim against evidence chunks (DESIGN.md §1).

The embedded default compares the claim with every sentence (and pair of adjacent
sentences) of the evidence: agreement of content words (Porter stems mapped through a small
legal thesaurus, weighted by an IDF computed over the evidence sentences), numbers with
their units, negation, deontic modality (shall/must vs may vs shall not) and scope
("only"/"solely" vs "including"). A claim is *contradicted* only when an evidence window
clearly about the same thing (high content overlap) clashes on a number, a modality, a
negation or a scope; otherwise high overlap is *supported*, partial overlap *weak*, and
little overlap *not_found*. High overlap is still only *weak* when a name or number of the
claim appears nowhere in the evidence, or when the window lacks the claim's predicate
("X hosted Y" against "X starred in Y").

Evidence preparation (sentence splitting, terms, quantities) is cached per chunk text, as it
would be at ingestion; a verify() call then costs well under a millisecond to a few ms.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ciq.text import STOPWORDS, TOKEN_RE, stem
from verification.lexicon import (
    EXCEPTION,
    HEDGES,
    LIGHT_WORDS,
    NEGATION,
    NUMBER_WORDS,
    OBLIGATION,
    PERMISSION,
    PROHIBITION,
    RESTRICTIVE,
    canonical,
)
from verification.models import Verdict
from verification.skeptic import ClaimDraft

STRICT, HELPFUL = "strict", "helpful"
SUPPORT_THRESHOLD = 0.73   # weighted share of claim terms in one evidence window
WEAK_THRESHOLD = 0.45
CLASH_GATE = 0.6           # overlap (numbers aside) needed before a clash counts
OR_PARTIAL = 0.6           # credit of an "A or B" slot when only some alternatives match
MAX_WINDOW = 2             # sentences per evidence window
SNIPPET_CHARS = 400

# --------------------------------------------------------------------------------------
# Text analysis shared by claims and evidence


@dataclass(frozen=True)
class Quantity:
    """A number with its unit: ``value`` as float, ``unit`` in day/week/month/year/hour/
    minute/usd/pct/year_date or "" for a bare number; ``text`` as written."""

    value: float
    unit: str
    text: str


_UNIT = {
    "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
    "months": "month", "year": "year", "years": "year", "hour": "hour", "hours": "hour",
    "minute": "minute", "minutes": "minute", "%": "pct", "percent": "pct", "per cent": "pct",
}
_NUMWORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
QUANTITY_RE = re.compile(
    r"(?P<usd>\$\s?)?"
    r"(?P<num>\d[\d,]*(?:\.\d+)?"
    rf"|\b(?:{_NUMWORD})(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?\b)"
    r"(?:\s*\(\s*\d[\d,]*\s*\))?"
    r"(?:\s*(?P<mult>million|billion|thousand)\b)?"
    r"(?:\s*(?:calendar|business|working|consecutive)?\s*"
    r"(?P<unit>%|percent\b|per cent\b|days?\b|weeks?\b|months?\b|years?\b|hours?\b|minutes?\b))?",
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
        # "one" as a pronoun ("one of the parties") is not a quantity.
        if not unit and not m.group("num")[0].isdigit():
            continue
        found.append(Quantity(value, unit, m.group().strip()))
    return tuple(found)


def _term(token: str) -> str | None:
    """The comparison term of one lowercase token, or None for stopwords and noise."""
    if token[0].isdigit():
        return token.replace(",", "")
    if token in NUMBER_WORDS:
        return str(NUMBER_WORDS[token])
    if token.endswith(("'s", "’s")):
        token = token[:-2]
    if token in STOPWORDS or len(token) < 2:
        return None
    return canonical(stem(token))


def _tokens(text: str) -> list[tuple[str, int]]:
    return [(m.group().lower(), m.start()) for m in TOKEN_RE.finditer(text)]


# --------------------------------------------------------------------------------------
# Evidence preparation (cached per chunk text)

_ABBREV = frozenset(
    """u.s.c u.s inc no nos sec secs co corp ltd llc e.g i.e etc v vs mr mrs ms dr art para
    paras st cf fig jan feb mar apr jun jul aug sep sept oct nov dec seq subd ch pp p al
    approx dept govt ord res rev stat""".split()
)
_BOUNDARY_RE = re.compile(
    r"(?<=[.!?;])[\"'”’)*_]*\s+(?=[*_>\"'“‘(\[]*[A-Z0-9§])"   # end mark, then a capital
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
            last = re.search(r"([A-Za-z.]+)\.$", before)
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
class _Sentence:
    start: int
    end: int
    tokens: list[tuple[str, int]]           # (lowercase token, offset in sentence)
    terms: list[str | None]                 # aligned with tokens
    caps: list[bool]                        # token starts with a capital (a defined term?)
    quantities: tuple[Quantity, ...]
    clause: list[int]                       # clause id per token (split at ; and :)
    inherited: frozenset[str] = frozenset() # terms of the list lead-in ("… does not include:")

    @property
    def all_terms(self) -> set[str]:
        return {t for t in self.terms if t} | self.inherited


@dataclass
class PreparedChunk:
    """Sentences of one chunk with their terms; ``index`` maps term -> bool array over
    sentences. Built once per chunk text by :func:`prepare_chunk`."""

    text: str
    sentences: list[_Sentence]
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
    together with the sentence it completes.
    """
    sentences: list[_Sentence] = []
    lead: frozenset[str] = frozenset()
    for s, e in split_sentences(text):
        body = text[s:e]
        toks = _tokens(body)
        terms = [_term(t) for t, _ in toks]
        sentences.append(
            _Sentence(s, e, toks, terms, [body[off].isupper() for _, off in toks],
                      quantities(body), _clause_ids(body, toks), lead)
        )
        tail = body.rstrip()[-1:]
        if tail == ":":
            lead = frozenset(t for t in terms if t)
        elif tail in ".!?" and not re.search(r"\b(?:and|or)$", body.rstrip(" .")):
            lead = frozenset()
    index: dict[str, np.ndarray] = {}
    n = len(sentences)
    for i, sent in enumerate(sentences):
        for term in sent.all_terms:
            arr = index.get(term)
            if arr is None:
                arr = index[term] = np.zeros(n, dtype=bool)
            arr[i] = True
    return PreparedChunk(text, sentences, index)


# --------------------------------------------------------------------------------------
# Claim analysis


@dataclass(frozen=True)
class _ClaimInfo:
    groups: tuple[tuple[str, ...], ...]  # alternatives per slot: "return or destroy" is one slot
    labels: tuple[str, ...]          # the claim's word for each slot (for reasoning)
    prior: tuple[float, ...]         # weight multiplier per slot
    numeric: tuple[bool, ...]        # slot is a number
    grounded: frozenset[str]         # terms of names and numbers the evidence must contain
    quantities: tuple[Quantity, ...]
    stance: str                      # oblige | permit | prohibit | neg | assert | restrict
    anchor: str | None               # the predicate term the modality attaches to
    predicate: str | None            # the anchor, or the first past-tense verb ("hosted")
    restrictive: bool
    scope_slots: frozenset[int]      # slots after "only"/"solely" (the restricted scope)
    hedged: bool
    word_terms: tuple[tuple[str, ...], ...]   # terms of each substantive word

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(t for g in self.groups for t in g)


_DEONTIC = OBLIGATION | PERMISSION | NEGATION | PROHIBITION
_MODAL_WORDS = _DEONTIC | RESTRICTIVE | {"be", "been", "is", "are", "also"}


def _stance(tokens: Sequence[str], exception_after: bool) -> str:
    toks = set(tokens)
    neg = bool(toks & NEGATION) or bool(toks & PROHIBITION)
    oblige = bool(toks & OBLIGATION)
    permit = bool(toks & PERMISSION)
    if toks & RESTRICTIVE:
        return "restrict"
    if neg and exception_after:
        return "restrict"
    if neg and (oblige or permit or toks & PROHIBITION):
        return "prohibit"
    if neg:
        return "neg"
    if oblige:
        return "oblige"
    if permit:
        return "permit"
    return "assert"


_COPULAS = frozenset("is are was were be been being has have had does do did".split())
_EXCEPTION_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in EXCEPTION) + r")\b")


@lru_cache(maxsize=8192)
def _claim_info(text: str, words: tuple[tuple[str, float], ...]) -> _ClaimInfo:
    """Slots, weights, stance and anchor of one claim sentence (cached on its text)."""
    matches = list(TOKEN_RE.finditer(text))
    raw = [m.group() for m in matches]
    toks = [t.lower() for t in raw]
    terms = [_term(t) for t in toks]
    depth, in_parens = 0, []
    last = 0
    for m in matches:
        gap = text[last : m.start()]
        depth = max(0, depth + gap.count("(") - gap.count(")"))
        in_parens.append(depth > 0)
        last = m.end()

    # Slots: one per content word, except that "A or B" / "A, B or C" share a slot.
    slot_of: dict[str, int] = {}
    groups: list[list[str]] = []
    labels: list[str] = []
    prior: list[float] = []
    first_pos: list[int] = []
    modal_at = next((i for i, t in enumerate(toks) if t in _DEONTIC), None)
    prev_content = None
    for i, term in enumerate(terms):
        if not term:
            continue
        between = toks[prev_content + 1 : i] if prev_content is not None else None
        joined = between in (["or"], ["and", "or"]) or (
            # "A, B or C": a comma now, an "or" to come.
            between == []
            and "," in text[matches[prev_content].end() : matches[i].start()]
            and re.search(r"\bor\b", text[matches[i].end() : matches[i].end() + 40]) is not None
        )
        if term in slot_of:
            prev_content = i
            continue
        if joined and prev_content is not None and terms[prev_content] in slot_of:
            slot = slot_of[terms[prev_content]]
            groups[slot].append(term)
            slot_of[term] = slot
        else:
            slot_of[term] = len(groups)
            groups.append([term])
            labels.append(raw[i])
            first_pos.append(i)
            # The subject (before the modal) is often a defined term the source names
            # differently ("Recipient"); vague words and parenthetical examples say little.
            factor = 1.0
            if toks[i] in LIGHT_WORDS:
                factor = 0.3
            elif in_parens[i]:
                factor = 0.4
            elif modal_at is not None and i < modal_at:
                factor = 0.35
            prior.append(factor)
        prev_content = i

    anchor = None
    if modal_at is not None:
        for j in range(modal_at + 1, min(len(toks), modal_at + 6)):
            if (terms[j] and toks[j] not in _MODAL_WORDS and not raw[j][0].isupper()
                    and not (toks[j].endswith("ly") and len(toks[j]) > 4)):
                anchor = terms[j]
                break
    prefix = toks[: (modal_at + 1 if modal_at is not None else 0) + 4]
    exception_after = bool(_EXCEPTION_RE.search(text.lower()))
    stance = _stance(prefix if modal_at is not None else toks, exception_after)
    restrict_at = next((i for i, t in enumerate(toks) if t in RESTRICTIVE), None)
    scope_slots = frozenset(
        k for k, pos in enumerate(first_pos) if restrict_at is not None and pos > restrict_at
        and groups[k][0] != anchor
    )
    word_terms = tuple(tuple(t for t in (_term(x) for x, _ in _tokens(w)) if t) for w, _ in words)
    grounded = frozenset(
        t for (_, importance), wt in zip(words, word_terms) if importance >= 0.95
        for t in wt if t in slot_of and prior[slot_of[t]] == 1.0
    ) | frozenset(
        # Each alternative of "A, B or C" must exist somewhere in the sources.
        t for k, g in enumerate(groups) if len(g) > 1 and prior[k] == 1.0 for t in g
    )
    predicate = anchor
    if predicate is None:
        predicate = next(
            (terms[i] for i in range(1, len(toks))
             if terms[i] and toks[i].endswith("ed") and len(toks[i]) > 4 and not raw[i][0].isupper()
             and toks[i] not in LIGHT_WORDS and not in_parens[i]),
            None,
        )
    return _ClaimInfo(
        predicate=predicate,
        groups=tuple(tuple(g) for g in groups), labels=tuple(labels), prior=tuple(prior),
        numeric=tuple(any(t[0].isdigit() for t in g) for g in groups), grounded=grounded,
        quantities=quantities(text), stance=stance, anchor=anchor,
        restrictive=restrict_at is not None, scope_slots=scope_slots,
        hedged=bool(set(toks) & HEDGES), word_terms=word_terms,
    )


# --------------------------------------------------------------------------------------
# Public types


@dataclass(frozen=True)
class EvidenceChunk:
    """One retrieved chunk: ``chunk_id`` (12 hex) and its text."""

    chunk_id: str
    text: str


@dataclass(frozen=True)
class Judgement:
    """The Judge's verdict on one claim (DESIGN.md §1).

    ``verdict`` is a :class:`Verdict` value; ``score`` in [0, 1] is the support strength
    (the weighted coverage for supported, 0.8 × coverage for weak, 0.5 × coverage for
    not_found, at most 0.35 for contradicted); ``snippet`` is the best evidence window,
    verbatim from the chunk, at most ~400 characters (cut at word boundaries, marked "…");
    ``word_scores`` is aligned with ``claim.substantive_words``: 1.0 when the word is in
    the best evidence window, 0.5 when it is only elsewhere in the counted evidence, 0.0
    when absent or clashing. It is the per-word support that
    :func:`verification.scoring.su_score` turns into the SUScore.
    """

    verdict: str
    score: float
    evidence_chunk_id: str
    snippet: str
    reasoning: str
    supporting_chunk_ids: tuple[str, ...]
    contradicting_chunk_ids: tuple[str, ...]
    word_scores: tuple[float, ...] = ()


@dataclass
class _Window:
    chunk: int
    first: int
    last: int           # inclusive sentence index
    coverage: float
    clash: str = ""     # human description of a clash, "" when none


class RuleJudge:
    """Token, number, negation, modality and scope agreement between claim and evidence.

    ``verify`` is pure and deterministic; chunk preparation is cached per text.
    """

    def verify(
        self, claim: ClaimDraft, evidence: Sequence[EvidenceChunk], *, mode: str = STRICT
    ) -> Judgement:
        """Judge ``claim`` against ``evidence``.

        Strict mode (DESIGN.md §1): only chunks whose ``chunk_id`` the claim cites count,
        and an uncited claim is ``not_found`` with score 0. Helpful mode: any chunk counts,
        and an uncited claim with no substantive words is a supported minor claim.
        Raises ``ValueError`` for an unknown mode.
        """
        if mode not in (STRICT, HELPFUL):
            raise ValueError(f"unknown verification mode {mode!r}")
        n_words = len(claim.substantive_words)
        if not claim.cited_chunk_ids:
            if mode == STRICT:
                return _judgement(Verdict.NOT_FOUND, 0.0, n_words=n_words, reasoning=(
                    "The claim cites no source, and strict mode rejects uncited claims."))
            if not claim.substantive_words:
                return _judgement(Verdict.SUPPORTED, 1.0, n_words=n_words, reasoning=(
                    "A minor claim with no substantive words; helpful mode accepts it "
                    "without a citation."))
        if mode == STRICT:
            cited = set(claim.cited_chunk_ids)
            chunks = [c for c in evidence if c.chunk_id in cited]
        else:
            chunks = list(evidence)
        if not chunks:
            return _judgement(Verdict.NOT_FOUND, 0.0, n_words=n_words,
                              reasoning="None of the cited sources is available as evidence.")

        # Tuples, also when the words come back from JSON as lists (the cache needs them hashable).
        words = tuple((str(w), float(i)) for w, i in claim.substantive_words)
        info = _claim_info(claim.text, words)
        if not info.groups:
            return _judgement(
                Verdict.SUPPORTED, 1.0, chunk_id=chunks[0].chunk_id, n_words=n_words,
                reasoning="A minor claim with no content words; the citation is accepted.",
                supporting=(chunks[0].chunk_id,),
            )
        prepared = [prepare_chunk(c.text) for c in chunks]
        return _decide(claim, info, chunks, prepared)


# --------------------------------------------------------------------------------------
# Scoring and decision


def _judgement(
    verdict: str, score: float, *, reasoning: str, n_words: int, chunk_id: str = "",
    snippet: str = "", supporting: tuple[str, ...] = (), contradicting: tuple[str, ...] = (),
    word_scores: tuple[float, ...] | None = None,
) -> Judgement:
    if word_scores is None:
        word_scores = tuple(1.0 if verdict == Verdict.SUPPORTED else 0.0 for _ in range(n_words))
    return Judgement(str(verdict), round(float(min(max(score, 0.0), 1.0)), 4), chunk_id, snippet,
                     reasoning, supporting, contradicting, word_scores)


def _term_matrix(
    info: _ClaimInfo, prepared: Sequence[PreparedChunk]
) -> tuple[np.ndarray, np.ndarray]:
    """Match matrix claim slots x all evidence sentences (1 = matched, 0 = absent, partial
    credit for "A or B" slots), and the chunk index of each sentence."""
    blocks = []
    owners = []
    for ci, chunk in enumerate(prepared):
        n = len(chunk.sentences)
        if n == 0:
            continue
        empty = np.zeros(n, dtype=bool)
        rows = []
        for group in info.groups:
            if len(group) == 1:
                row = chunk.index.get(group[0])
                if row is None and group[0] in info.grounded:
                    row = _prefix_row(chunk, group[0])
                rows.append((empty if row is None else row).astype(np.float32))
                continue
            # "A or B": either alternative matches the slot, but naming only some of the
            # claim's alternatives earns partial credit (a hallucinated extra must cost).
            found = np.vstack([chunk.index.get(t, empty) for t in group]).astype(np.float32)
            share = found.mean(axis=0)
            rows.append(np.where(share > 0, OR_PARTIAL + (1.0 - OR_PARTIAL) * share, 0.0))
        blocks.append(np.vstack(rows))
        owners.append(np.full(n, ci))
    if not blocks:
        return np.zeros((len(info.groups), 0), dtype=np.float32), np.zeros(0, dtype=int)
    return np.hstack(blocks), np.concatenate(owners)


def _prefix_row(chunk: PreparedChunk, term: str) -> np.ndarray | None:
    """Sentences with a word that extends a short name ("Pam" for "Pamela")."""
    if len(term) < 3 or term[0].isdigit():
        return None
    rows = [
        arr for key, arr in chunk.index.items()
        if key.startswith(term) and len(key) <= len(term) + 4
    ]
    if not rows:
        return None
    return np.logical_or.reduce(rows)


def _weights(matrix: np.ndarray, info: _ClaimInfo) -> np.ndarray:
    """IDF over the evidence sentences times the slot's prior; numbers weigh like rare words."""
    n = matrix.shape[1]
    df = (matrix > 0).sum(axis=1)
    w = np.log((n + 1.0) / (df + 0.5)) + 0.5
    rare = math.log(2.0 * (n + 1.0)) + 0.5
    w = np.where(np.asarray(info.numeric), np.maximum(w, rare), w)
    return w * np.asarray(info.prior)


def _window_coverage(
    matrix: np.ndarray, owners: np.ndarray, w: np.ndarray, size: int
) -> np.ndarray:
    """Weighted coverage of each window of ``size`` sentences (-1 across chunk borders)."""
    n = matrix.shape[1]
    if n < size:
        return np.zeros(0)
    acc = matrix[:, : n - size + 1].copy()
    for k in range(1, size):
        np.maximum(acc, matrix[:, k : n - size + 1 + k], out=acc)
    cov = (w @ acc) / w.sum()
    # Wider windows must earn their extra text: a small discount per added sentence.
    cov = cov * (1.0 - 0.04 * (size - 1))
    same = owners[: n - size + 1] == owners[size - 1 :]
    return np.where(same, cov, -1.0)


def _slots_present(info: _ClaimInfo, present: set[str]) -> list[bool]:
    return [any(t in present for t in g) for g in info.groups]


def _has_predicate(info: _ClaimInfo, sents: Sequence[_Sentence]) -> bool:
    group = next((g for g in info.groups if info.predicate in g), (info.predicate,))
    present = set().union(*(s.all_terms for s in sents))
    return any(t in present for t in group)


def _decide(claim: ClaimDraft, info: _ClaimInfo, chunks: Sequence[EvidenceChunk],
            prepared: Sequence[PreparedChunk]) -> Judgement:
    matrix, owners = _term_matrix(info, prepared)
    n_words = len(claim.substantive_words)
    if matrix.shape[1] == 0:
        return _judgement(Verdict.NOT_FOUND, 0.0, n_words=n_words,
                          reasoning="The cited sources contain no text.")
    w = _weights(matrix, info)
    starts = np.concatenate([[0], np.flatnonzero(np.diff(owners)) + 1])
    chunk_start = {int(owners[s]): int(s) for s in starts}

    candidates: list[_Window] = []
    for size in range(1, MAX_WINDOW + 1):
        cov = _window_coverage(matrix, owners, w, size)
        if cov.size == 0:
            continue
        top = np.argsort(-cov, kind="stable")[:6]
        for g in top:
            if cov[g] <= 0:
                continue
            ci = int(owners[g])
            local = int(g) - chunk_start[ci]
            candidates.append(_Window(ci, local, local + size - 1, float(cov[g])))
    if not candidates:
        return _judgement(Verdict.NOT_FOUND, 0.0, n_words=n_words,
                          reasoning="Not found: no evidence sentence shares the claim's key words.")
    candidates.sort(key=lambda c: (-c.coverage, c.last - c.first))

    # The clash gate ignores numbers (a changed number is the clash itself) and, for an
    # "only X" claim, the restricted scope X (evidence that defines the scope broadly may
    # never name X).
    gate_mask = np.array(
        [not num and k not in info.scope_slots for k, num in enumerate(info.numeric)]
    )
    w_gate = w * gate_mask if gate_mask.any() else w
    for cand in candidates[:10]:
        sents = prepared[cand.chunk].sentences[cand.first : cand.last + 1]
        present = set().union(*(s.all_terms for s in sents))
        hits = np.array(_slots_present(info, present))
        gate = float((w_gate * hits).sum() / max(w_gate.sum(), 1e-9))
        if gate >= CLASH_GATE:
            cand.clash = _clash(info, sents, prepared[cand.chunk].text)

    supporting = [c for c in candidates if not c.clash and c.coverage >= SUPPORT_THRESHOLD]
    clashing = sorted((c for c in candidates if c.clash), key=lambda c: -c.coverage)
    support_ids = tuple(dict.fromkeys(chunks[c.chunk].chunk_id for c in supporting))
    clash_ids = tuple(dict.fromkeys(chunks[c.chunk].chunk_id for c in clashing))
    best = candidates[0]

    if supporting and (not clashing or supporting[0].coverage >= clashing[0].coverage):
        anywhere = {t for p in prepared for t in p.index}
        ungrounded = sorted(
            t for t in info.grounded
            if t not in anywhere and all(_prefix_row(p, t) is None for p in prepared)
        )
        if ungrounded:
            # A name or number the sources never mention cannot be supported.
            names = ", ".join(_labels_for(info, ungrounded))
            return _verdict(Verdict.WEAK, 0.8 * supporting[0].coverage, supporting[0], claim, info,
                            chunks, prepared, (), (), n_words,
                            note=f"the sources never mention {names}")
        win = supporting[0]
        window_sents = prepared[win.chunk].sentences[win.first : win.last + 1]
        if info.predicate and not _has_predicate(info, window_sents):
            # The things match but not what is said of them ("X hosted Y" vs "X starred in Y").
            verb = _labels_for(info, [info.predicate])[0]
            return _verdict(Verdict.WEAK, 0.8 * win.coverage, win, claim, info, chunks, prepared,
                            (), (), n_words, note=f"it does not say \"{verb}\"")
        return _verdict(Verdict.SUPPORTED, win.coverage, win, claim, info, chunks, prepared,
                        support_ids, (), n_words)
    if clashing:
        win = clashing[0]
        return _verdict(Verdict.CONTRADICTED, 0.3 * (1.0 - win.coverage) + 0.05, win, claim, info,
                        chunks, prepared, (), clash_ids, n_words)
    if best.coverage >= WEAK_THRESHOLD:
        return _verdict(Verdict.WEAK, 0.8 * best.coverage, best, claim, info, chunks, prepared,
                        (), (), n_words)
    return _verdict(Verdict.NOT_FOUND, 0.5 * best.coverage, best, claim, info, chunks, prepared,
                    (), (), n_words)


# --------------------------------------------------------------------------------------
# Clash detection


def _clash(info: _ClaimInfo, sents: Sequence[_Sentence], chunk_text: str) -> str:
    """A description of a number, modality/negation or scope clash, or "" for none."""
    return (_quantity_clash(info, sents) or _stance_clash(info, sents, chunk_text)
            or _scope_clash(info, sents, chunk_text))


def _quantity_clash(info: _ClaimInfo, sents: Sequence[_Sentence]) -> str:
    ev = [q for s in sents for q in s.quantities]
    for cq in info.quantities:
        if not cq.unit:
            continue
        same_unit = [q for q in ev if q.unit == cq.unit]
        if same_unit and not any(abs(q.value - cq.value) < 1e-9 for q in same_unit):
            said = ", ".join(dict.fromkeys(q.text.rstrip(".") for q in same_unit))
            return f"the evidence says \"{said}\" where the claim says \"{cq.text.rstrip('.')}\""
    return ""


_COMPATIBLE = {
    # claim stance -> evidence stances that do not clash with it
    "oblige": {"oblige", "assert", "restrict"},
    "permit": {"permit", "assert", "restrict", "oblige"},
    "prohibit": {"prohibit", "neg", "restrict"},
    "neg": {"prohibit", "neg", "restrict"},
    "assert": {"assert", "oblige", "permit", "restrict"},
    "restrict": {"oblige", "permit", "prohibit", "neg", "assert", "restrict"},
}
_STANCE_WORDS = {
    "oblige": "requires", "permit": "permits", "prohibit": "prohibits", "neg": "denies",
    "assert": "states", "restrict": "restricts",
}


def _evidence_stance(
    info: _ClaimInfo, sent: _Sentence, chunk_text: str
) -> tuple[str, str] | None:
    """Stance of the evidence sentence toward the claim's anchor, with the words it rests on.

    Looks at up to 12 tokens before the anchor in the same clause ("shall not … retain").
    A prohibition followed by an exception that names claim words the prohibition itself
    does not ("shall not disclose … except to its employees") restricts rather than
    prohibits, as does "only"/"solely" just after the verb. Capitalised occurrences are
    defined terms ("Disclosing Party"), not the predicate.
    """
    if info.anchor is None:
        return None
    body = chunk_text[sent.start : sent.end]
    other_terms = set(info.terms) - {info.anchor}
    for i, term in enumerate(sent.terms):
        if term != info.anchor or sent.caps[i]:
            continue
        lo = i
        while lo > 0 and i - lo < 12 and sent.clause[lo - 1] == sent.clause[i]:
            lo -= 1
        # Negation may also follow the predicate: "composed of no toxic chemicals".
        window = [t for t, _ in sent.tokens[lo : i + 1]] + [
            t for t, _ in sent.tokens[i + 1 : i + 3] if t in ("no", "nothing", "none")
        ]
        after = body[sent.tokens[i][1] :]
        exc = _EXCEPTION_RE.search(after.lower())
        exception_after = False
        if exc:
            # The carve-out covers the claim when it names claim words the rule itself
            # does not ("shall not disclose to anyone except its employees").
            cut = sent.tokens[i][1] + exc.start()
            head_terms = {t for t, (_, off) in zip(sent.terms, sent.tokens) if off < cut}
            tail_terms = {_term(t) for t, _ in _tokens(after[exc.start() :])}
            exception_after = bool((tail_terms & other_terms) - head_terms)
        # "shall disclose … only to its employees": a scope word just after the verb.
        follow = [t for t, _ in sent.tokens[i + 1 : i + 10]]
        scoped = bool(set(follow) & RESTRICTIVE)
        stance = _stance(window, exception_after)
        if stance == "restrict" and not exception_after and not set(window) & RESTRICTIVE:
            stance = "prohibit"
        if scoped and stance in ("oblige", "permit", "assert"):
            stance = "restrict"
        negated_claim = info.stance in ("prohibit", "neg")
        if stance == "assert" and negated_claim and not set(window[-3:-1]) & _COPULAS:
            # Without a modal, negation or copula the word is likely attributive ("the
            # information disclosed", "the powers granted"): no stance to compare.
            return None
        phrase = body[sent.tokens[lo][1] : sent.tokens[i][1] + len(sent.tokens[i][0])]
        return stance, phrase
    return None


def _stance_clash(info: _ClaimInfo, sents: Sequence[_Sentence], chunk_text: str) -> str:
    """A clash only when every evidence sentence that states the claim's predicate clashes:
    contracts often prohibit in one sentence and carve out an exception in the next."""
    clash = ""
    allowed = _COMPATIBLE[info.stance]
    if info.stance == "permit" and not info.hedged:
        # "must" restated as "may" misstates the rule (DESIGN.md §1: modality agreement);
        # a hedged claim ("may … in some circumstances") only asserts a possibility.
        allowed = allowed - {"oblige"}
    for sent in sents:
        found = _evidence_stance(info, sent, chunk_text)
        if found is None:
            continue
        stance, phrase = found
        if stance in allowed:
            return ""
        clash = clash or (f"the evidence {_STANCE_WORDS[stance]} (\"{phrase.strip()}\") where the "
                          f"claim {_STANCE_WORDS[info.stance]}")
    return clash


_BROAD_RE = re.compile(
    r"\b(?:including|includes?|such as|without limitation|not limited to|whether|any and all|"
    r"all (?:\w+ )?information|any (?:\w+ )?information|of any kind|or otherwise|in any form)\b",
    re.IGNORECASE,
)


def _scope_clash(info: _ClaimInfo, sents: Sequence[_Sentence], chunk_text: str) -> str:
    """An "only X" claim against evidence that defines the scope broadly."""
    if not info.restrictive:
        return ""
    text = " ".join(chunk_text[s.start : s.end] for s in sents)
    low = text.lower()
    if re.search(r"\b(?:only|solely|exclusively)\b|(?<!not )\blimited to\b", low):
        return ""
    broad = _BROAD_RE.search(text)
    if broad:
        return (f"the evidence defines the scope broadly (\"{broad.group()}\") where the claim "
                f"says \"only\"")
    return ""


# --------------------------------------------------------------------------------------
# Building the judgement


def _snippet(text: str, start: int, end: int, focus: int) -> str:
    if end - start <= SNIPPET_CHARS:
        return text[start:end]
    lo = max(start, min(focus - SNIPPET_CHARS // 3, end - SNIPPET_CHARS))
    hi = min(end, lo + SNIPPET_CHARS)
    while lo > start and not text[lo - 1].isspace():
        lo += 1
    while hi < end and not text[hi].isspace():
        hi -= 1
    return ("…" if lo > start else "") + text[lo:hi].strip() + ("…" if hi < end else "")


def _verdict(verdict: str, score: float, win: _Window, claim: ClaimDraft, info: _ClaimInfo,
             chunks: Sequence[EvidenceChunk], prepared: Sequence[PreparedChunk],
             support_ids: tuple[str, ...], clash_ids: tuple[str, ...], n_words: int,
             note: str = "") -> Judgement:
    chunk = prepared[win.chunk]
    sents = chunk.sentences[win.first : win.last + 1]
    in_window = set().union(*(s.all_terms for s in sents))
    anywhere = {t for p in prepared for t in p.index}
    start, end = sents[0].start, sents[-1].end
    focus = start
    for s in sents:
        hit = next((off for (_, off), t in zip(s.tokens, s.terms) if t == info.anchor), None)
        if hit is not None:
            focus = s.start + hit
            break
    snippet = _snippet(chunk.text, start, end, focus)

    word_scores = []
    for word_terms in info.word_terms:
        if not word_terms or all(t in in_window for t in word_terms):
            word_scores.append(1.0)
        elif any(t in in_window or t in anywhere for t in word_terms):
            word_scores.append(0.5)
        else:
            word_scores.append(0.0)
    if verdict == Verdict.CONTRADICTED and win.clash.startswith("the evidence says"):
        for i, (word, _) in enumerate(claim.substantive_words):
            if word[:1].isdigit() or word[:1] in "$§":
                word_scores[i] = 0.0

    hits = _slots_present(info, in_window)
    matched = sum(hits)
    missing = [label for label, hit in zip(info.labels, hits) if not hit]
    total = len(info.groups)
    share = f"{matched} of {total} key words (weighted coverage {win.coverage:.0%})"
    gaps = ", ".join(missing[:6])
    if verdict == Verdict.CONTRADICTED:
        reasoning = f"Contradicted: {win.clash}."
    elif verdict == Verdict.SUPPORTED:
        reasoning = f"Supported: the evidence matches {share}."
        if missing:
            reasoning += f" Not matched: {', '.join(missing[:5])}."
    elif note:
        reasoning = f"Partial support: the evidence matches {share}, but {note}."
    elif verdict == Verdict.WEAK:
        reasoning = f"Partial support: the best evidence matches {share}; missing: {gaps}."
    else:
        reasoning = f"Not found: the best evidence matches only {share}; missing: {gaps}."
    return _judgement(
        verdict, score, reasoning=reasoning, n_words=n_words, chunk_id=chunks[win.chunk].chunk_id,
        snippet=snippet, supporting=support_ids, contradicting=clash_ids,
        word_scores=tuple(word_scores),
    )


def _labels_for(info: _ClaimInfo, terms: Sequence[str]) -> list[str]:
    out = []
    for label, group in zip(info.labels, info.groups):
        if any(t in terms for t in group):
            out.append(label)
    return out or list(terms)
