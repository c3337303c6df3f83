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
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verification.alignment import minilm_enabled
from verification.claim_info import ClaimInfo, claim_info
from verification.clash import clash, restates, sentence_clash
from verification.evidence import (
    PreparedChunk,
    Sentence,
    prepare_chunk,
    quantities,
    split_sentences,
)
from verification.models import Verdict
from verification.reading import best_sentence, terms
from verification.skeptic import ClaimDraft

# Evidence preparation is re-exported: other code imports it from here.
__all__ = [
    "EvidenceChunk", "Judgement", "RuleJudge", "prepare_chunk", "quantities", "split_sentences",
]

STRICT, HELPFUL = "strict", "helpful"
SUPPORT_THRESHOLD = 0.73   # weighted share of claim terms in one evidence window
WEAK_THRESHOLD = 0.45
CLASH_GATE = 0.6           # overlap (numbers aside) needed before a clash counts
OR_PARTIAL = 0.6           # credit of an "A or B" slot when only some alternatives match
MAX_WINDOW = 2             # sentences per evidence window
UNIT_WORDS = frozenset("day days week weeks month months year years hour hours minute minutes".split())
SOFT_WINDOWS = 3           # windows read by meaning (MiniLM), best first
SNIPPET_CHARS = 400


# --------------------------------------------------------------------------------------
# Public types


@dataclass(frozen=True)
class EvidenceChunk:
    """One retrieved chunk: ``chunk_id`` (12 hex), its text, ``context`` (the document
    title and section heading) and ``jurisdiction`` (its code; "" when unknown), both for
    judging a claim's relevance, not evidence themselves."""

    chunk_id: str
    text: str
    context: str = ""
    jurisdiction: str = ""


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
    :func:`verification.scoring.su_score` turns into the SUScore. ``clash_pair`` names
    what clashes for a contradiction, ``aligned`` is the evidence sentence the claim was
    aligned to (both "" when not applicable), so a reviewer can check the verdict.
    """

    verdict: str
    score: float
    evidence_chunk_id: str
    snippet: str
    reasoning: str
    supporting_chunk_ids: tuple[str, ...]
    contradicting_chunk_ids: tuple[str, ...]
    word_scores: tuple[float, ...] = ()
    clash_pair: str = ""    # contradicted: what clashes ("claim: 60 days / evidence: 30 days")
    aligned: str = ""       # the evidence sentence the claim was aligned to (learned stage)


@dataclass
class _Window:
    chunk: int
    first: int
    last: int           # inclusive sentence index
    coverage: float
    clash: str = ""     # human description of a clash, "" when none
    soft: tuple[int, ...] = ()  # slots matched by meaning, not by word (alignment.py)


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
        info = claim_info(claim.text, words)
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
    word_scores: tuple[float, ...] | None = None, clash_pair: str = "", aligned: str = "",
) -> Judgement:
    if word_scores is None:
        word_scores = tuple(1.0 if verdict == Verdict.SUPPORTED else 0.0 for _ in range(n_words))
    return Judgement(str(verdict), round(float(min(max(score, 0.0), 1.0)), 4), chunk_id, snippet,
                     reasoning, supporting, contradicting, word_scores, clash_pair, aligned)


def _term_matrix(
    info: ClaimInfo, prepared: Sequence[PreparedChunk]
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


def _weights(matrix: np.ndarray, info: ClaimInfo) -> np.ndarray:
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


def _slots_present(info: ClaimInfo, present: set[str]) -> list[bool]:
    return [any(t in present for t in g) for g in info.groups]


def _has_predicate(info: ClaimInfo, sents: Sequence[Sentence]) -> bool:
    group = next((g for g in info.groups if info.predicate in g), (info.predicate,))
    present = set().union(*(s.all_terms for s in sents))
    return any(t in present for t in group)


@dataclass
class _Alignment:
    """The claim aligned to the evidence: candidate windows best first (each with its
    clash, if any), and the slot weights."""

    candidates: list[_Window]
    weights: np.ndarray


def _align(info: ClaimInfo, prepared: Sequence[PreparedChunk]) -> _Alignment | None:
    """Step 1: score every window of 1..MAX_WINDOW sentences by weighted coverage of the
    claim's slots and keep the best few per size (None when the sources have no text)."""
    matrix, owners = _term_matrix(info, prepared)
    if matrix.shape[1] == 0:
        return None
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
    candidates.sort(key=lambda c: (-c.coverage, c.last - c.first))
    return _Alignment(candidates, w)


def _mark_clashes(info: ClaimInfo, alignment: _Alignment,
                  prepared: Sequence[PreparedChunk], claim_text: str) -> None:
    """Step 2: the structured clash checks on the best ten windows that are clearly about
    the same thing. The gate ignores numbers (a changed number is the clash itself) and,
    for an "only X" claim, the restricted scope X (evidence that defines the scope broadly
    may never name X)."""
    w = alignment.weights
    gate_mask = np.array(
        [not num and k not in info.scope_slots for k, num in enumerate(info.numeric)]
    )
    w_gate = w * gate_mask if gate_mask.any() else w
    claim_terms = set(terms(claim_text))
    for cand in alignment.candidates[:10]:
        sents = prepared[cand.chunk].sentences[cand.first : cand.last + 1]
        present = set().union(*(s.all_terms for s in sents))
        hits = np.array(_slots_present(info, present))
        gate = float((w_gate * hits).sum() / max(w_gate.sum(), 1e-9))
        if gate >= CLASH_GATE:
            text = prepared[cand.chunk].text
            window = text[sents[0].start : sents[-1].end]
            lead_in = text[slice(*sents[0].lead)] if sents[0].lead else ""
            if lead_in and ":" in claim_text and restates(claim_text.rsplit(":", 1)[0], lead_in):
                # A claim that quotes a list's lead-in with an item ("No fence shall …,
                # except: fence heights … authorized by …") is read against both: the
                # lead-in's negation and modal verb govern the item.
                window = f"{lead_in} {window}"
            cand.clash = clash(info, sents, text) or sentence_clash(
                claim_text, best_sentence(claim_terms, window), hedged=info.hedged)


def _match_by_meaning(info: ClaimInfo, alignment: _Alignment,
                      prepared: Sequence[PreparedChunk], claim_text: str) -> None:
    """Step 2b (with MiniLM): the slots a window lacks by word may be said in other words
    (:mod:`verification.alignment`). For the best few windows without a clash between
    weak and supported, a slot whose word aligns by meaning (``SOFT_MATCH``) earns its
    weight. Numbers and names never do (:func:`_meaning_may_match`)."""
    from verification.alignment import SOFT_MATCH, similarities

    w = alignment.weights
    looked = 0
    for cand in alignment.candidates:
        if looked == SOFT_WINDOWS:
            break
        if cand.clash or not WEAK_THRESHOLD <= cand.coverage < SUPPORT_THRESHOLD:
            continue
        looked += 1
        sents = prepared[cand.chunk].sentences[cand.first : cand.last + 1]
        present = set().union(*(s.all_terms for s in sents))
        hits = _slots_present(info, present)
        missing = [k for k, hit in enumerate(hits) if not hit and _meaning_may_match(info, k)]
        if not missing:
            continue
        text = prepared[cand.chunk].text[sents[0].start : sents[-1].end]
        shared = {t for k, hit in enumerate(hits) if hit for t in info.groups[k]}
        sims = similarities(claim_text, [info.labels[k] for k in missing], text, shared)
        matched = [(k, sim) for k, sim in zip(missing, sims, strict=True) if sim >= SOFT_MATCH]
        if matched:
            # A slot said in other words earns its weight times the similarity (BERTScore).
            discount = 1.0 - 0.04 * (cand.last - cand.first)
            cand.coverage += discount * sum(float(w[k]) * sim for k, sim in matched) / float(w.sum())
            cand.soft = tuple(k for k, _ in matched)
    alignment.candidates.sort(key=lambda c: (-c.coverage, c.last - c.first))


def _meaning_may_match(info: ClaimInfo, slot: int) -> bool:
    """Whether a slot may be matched by meaning: not a number, a unit of time ("year" is
    not "month") or a name (a party, place or title is said or it is not; "Planning
    Commission" is not "City Council")."""
    label = info.labels[slot]
    return (not info.numeric[slot] and not label[:1].isupper() and label.lower() not in UNIT_WORDS
            and not any(c.isdigit() for c in label))


@dataclass
class _Decision:
    """The rule stage's verdict on its chosen window (before the classifier)."""

    verdict: str
    score: float
    win: _Window
    support_ids: tuple[str, ...] = ()
    clash_ids: tuple[str, ...] = ()
    note: str = ""


def _ungrounded(info: ClaimInfo, prepared: Sequence[PreparedChunk],
                said: frozenset[str] = frozenset()) -> list[str]:
    """Terms of the claim's names and numbers that no evidence sentence holds (``said``:
    terms the evidence says in other words)."""
    anywhere = {t for p in prepared for t in p.index}
    return sorted(
        t for t in info.grounded
        if t not in anywhere and t not in said and all(_prefix_row(p, t) is None for p in prepared)
    )


def _rule_decision(info: ClaimInfo, alignment: _Alignment, chunks: Sequence[EvidenceChunk],
                   prepared: Sequence[PreparedChunk]) -> _Decision:
    """Step 3: coverage thresholds and clashes decide (the Judge without its classifier).

    High overlap is still only weak when a name or number of the claim appears nowhere in
    the evidence, or when the window lacks the claim's predicate."""
    candidates = alignment.candidates
    supporting = [c for c in candidates if not c.clash and c.coverage >= SUPPORT_THRESHOLD]
    clashing = sorted((c for c in candidates if c.clash), key=lambda c: -c.coverage)
    support_ids = tuple(dict.fromkeys(chunks[c.chunk].chunk_id for c in supporting))
    clash_ids = tuple(dict.fromkeys(chunks[c.chunk].chunk_id for c in clashing))
    best = candidates[0]
    if supporting and (not clashing or supporting[0].coverage >= clashing[0].coverage):
        win = supporting[0]
        said = frozenset(t for k in win.soft for t in info.groups[k])
        ungrounded = _ungrounded(info, prepared, said)
        if ungrounded:
            names = ", ".join(_labels_for(info, ungrounded))
            return _Decision(Verdict.WEAK, 0.8 * win.coverage, win,
                             note=f"the sources never mention {names}")
        window_sents = prepared[win.chunk].sentences[win.first : win.last + 1]
        if info.predicate and info.predicate not in said and not _has_predicate(info, window_sents):
            verb = _labels_for(info, [info.predicate])[0]
            return _Decision(Verdict.WEAK, 0.8 * win.coverage, win,
                             note=f"it does not say \"{verb}\"")
        return _Decision(Verdict.SUPPORTED, win.coverage, win, support_ids)
    if clashing:
        win = clashing[0]
        return _Decision(Verdict.CONTRADICTED, 0.3 * (1.0 - win.coverage) + 0.05, win, (),
                         clash_ids)
    if best.coverage >= WEAK_THRESHOLD:
        return _Decision(Verdict.WEAK, 0.8 * best.coverage, best)
    return _Decision(Verdict.NOT_FOUND, 0.5 * best.coverage, best)


def rule_stage(claim_text: str, info: ClaimInfo, alignment: _Alignment,
               chunks: Sequence[EvidenceChunk], prepared: Sequence[PreparedChunk], *,
               meaning: bool) -> _Decision:
    """Steps 2 and 3 on an alignment: clash checks, matching by meaning (with ``meaning``:
    MiniLM) on windows without a clash, then the rule decision. The classifier reads the pair after
    these steps, in a turn and in training alike. (Checking clashes again on windows that
    matching by meaning lifted cost more paraphrases than it caught contradictions on the
    hand-written training pairs.)"""
    _mark_clashes(info, alignment, prepared, claim_text)
    if meaning:
        _match_by_meaning(info, alignment, prepared, claim_text)
    return _rule_decision(info, alignment, chunks, prepared)


def _decide(claim: ClaimDraft, info: ClaimInfo, chunks: Sequence[EvidenceChunk],
            prepared: Sequence[PreparedChunk], *, learned: bool = True) -> Judgement:
    """Align, check clashes, decide by rule, then (with ``learned`` and shipped weights)
    let the classifier decide on the aligned pair (:mod:`verification.classifier`)."""
    n_words = len(claim.substantive_words)
    alignment = _align(info, prepared)
    if alignment is None:
        return _judgement(Verdict.NOT_FOUND, 0.0, n_words=n_words,
                          reasoning="The cited sources contain no text.")
    if not alignment.candidates:
        return _judgement(Verdict.NOT_FOUND, 0.0, n_words=n_words,
                          reasoning="Not found: no evidence sentence shares the claim's key words.")
    decision = rule_stage(claim.text, info, alignment, chunks, prepared, meaning=minilm_enabled())
    if learned:
        from verification.classifier import classify

        decision = classify(claim.text, info, decision, alignment, chunks, prepared)
    return _verdict(decision.verdict, decision.score, decision.win, claim, info, chunks, prepared,
                    decision.support_ids, decision.clash_ids, n_words, note=decision.note)


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


def _verdict(verdict: str, score: float, win: _Window, claim: ClaimDraft, info: ClaimInfo,
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
        hit = next((off for (_, off), t in zip(s.tokens, s.terms, strict=False) if t == info.anchor), None)
        if hit is not None:
            focus = s.start + hit
            break
    snippet = _snippet(chunk.text, start, end, focus)

    # A word the window holds as written is supported, though a phrase there reads it as
    # part of one term ("order" in "in order to", which has none).
    written = {token for s in sents for token, _ in s.tokens}
    word_scores = []
    for (word, _), word_terms in zip(claim.substantive_words, info.word_terms, strict=False):
        if not word_terms or all(t in in_window for t in word_terms) or word.lower() in written:
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
    for k in win.soft:
        hits[k] = True
    matched = sum(hits)
    missing = [label for label, hit in zip(info.labels, hits, strict=False) if not hit]
    total = len(info.groups)
    share = f"{matched} of {total} key words (weighted coverage {win.coverage:.0%})"
    gaps = ", ".join(missing[:6])
    aligned = note if note.startswith("aligned evidence:") else ""
    if aligned:
        note = ""
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
    if win.soft and verdict != Verdict.CONTRADICTED:
        reasoning += f" Said in other words: {', '.join(info.labels[k] for k in win.soft)}."
    if aligned:
        reasoning += f" {aligned[0].upper()}{aligned[1:]}"
    return _judgement(
        verdict, score, reasoning=reasoning, n_words=n_words, chunk_id=chunks[win.chunk].chunk_id,
        snippet=snippet, supporting=support_ids, contradicting=clash_ids,
        word_scores=tuple(word_scores), clash_pair=win.clash if verdict == Verdict.CONTRADICTED else "",
        aligned=aligned.partition(": ")[2].strip("\u201c\u201d"),
    )


def _labels_for(info: ClaimInfo, terms: Sequence[str]) -> list[str]:
    out = []
    for label, group in zip(info.labels, info.groups, strict=False):
        if any(t in terms for t in group):
            out.append(label)
    return out or list(terms)
