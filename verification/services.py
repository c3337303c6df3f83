"""Verification of a text's claims and the writing of the evidence ledger (DESIGN.md §1).

``claim_verify`` is pure (Judge + scores); ``ledger_save`` writes a cycle's claims and
ledger entries in one transaction, so a ledger is never half-written.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from retrieval.question import QuestionAnalysis
from retrieval.relevance import MEANING_SCORE, out_of_place
from verification.judge import EvidenceChunk, Judgement
from verification.models import Claim, ClaimType, LedgerEntry, Outcome, Verdict
from verification.relevance import Relevance, claim_relevance, outcome_for
from verification.scoring import (
    claim_confidence,
    confidence_level,
    recommendations,
    su_score,
    turn_confidence,
)
from verification.skeptic import ClaimDraft


class BackendOutputError(ValueError):
    """A Skeptic or Judge backend returned something outside the ledger's vocabulary."""

    code = "bad_backend_output"


def _check(claim: ClaimDraft, judgement: Judgement) -> None:
    if claim.type not in ClaimType.values:
        raise BackendOutputError(f"claim type {claim.type!r} is not one of {ClaimType.values}")
    if judgement.verdict not in Verdict.values:
        raise BackendOutputError(f"verdict {judgement.verdict!r} is not one of {Verdict.values}")
    if not 0.0 <= judgement.score <= 1.0:
        raise BackendOutputError(f"judge score {judgement.score!r} is outside [0, 1]")


@dataclass(frozen=True)
class VerifiedClaim:
    """A claim with the Judge's verdict and its scores (all in [0, 1]; ``ms`` in ms)."""

    draft: ClaimDraft
    judgement: Judgement
    su_score: float
    confidence: float
    level: str
    ms: float
    relevance: Relevance | None = None  # None: judged without a question analysis

    @property
    def addressed(self) -> tuple[int, ...]:
        """The question's facets this claim addresses (none without an analysis)."""
        return self.relevance.addressed if self.relevance else ()

    @property
    def supported(self) -> bool:
        """Whether the Judge found the claim supported (weak, not_found and contradicted
        all count as unsupported, DESIGN.md §1)."""
        return self.judgement.verdict == Verdict.SUPPORTED


def claim_verify(
    *, claim: ClaimDraft, evidence: Sequence[EvidenceChunk], mode: str, judge,
    analysis: QuestionAnalysis | None = None, idf: dict[str, float] | None = None,
) -> VerifiedClaim:
    """Judge one claim and score it: SUScore and claim confidence as DESIGN.md §1.

    Supporting sources = distinct chunks the Judge lists as supporting. With the
    question's ``analysis`` the claim is also judged for relevance (read beside its best
    evidence, :func:`verification.relevance.claim_relevance`, ``idf`` weighting the
    question's terms; evidence out of the question's places or of a firm document the
    question does not point at addresses nothing, ``retrieval.relevance.out_of_place``),
    which scales its confidence.
    Raises ``BackendOutputError`` for a claim type, verdict or score outside the ledger's
    vocabulary (a pluggable backend must not write what the ledger cannot hold).
    """
    started = time.perf_counter()
    judgement = judge.verify(claim, evidence, mode=mode)
    ms = (time.perf_counter() - started) * 1000
    _check(claim, judgement)
    # No per-word support from the backend: the judge score stands for every word.
    word_scores = judgement.word_scores or (judgement.score,) * len(claim.substantive_words)
    su = su_score(claim.substantive_words, word_scores)
    relevance = None
    if analysis is not None:
        source = next((e for e in evidence if e.chunk_id == judgement.evidence_chunk_id), None)
        relevance = claim_relevance(
            analysis, claim.text, evidence_text=source.text if source else "",
            snippet=judgement.snippet, context=source.context if source else "", idf=idf,
            elsewhere=bool(source and source.jurisdiction) and out_of_place(
                analysis, source.jurisdiction, f"{source.context}\n{source.text}"),
        )
    confidence = claim_confidence(
        judgement.score, su, len(set(judgement.supporting_chunk_ids)),
        relevance.vouched if relevance else 1.0,
    )
    return VerifiedClaim(claim, judgement, su, confidence, confidence_level(confidence), ms, relevance)


def _by_meaning_only(verified: Sequence[VerifiedClaim]) -> set[int]:
    """The facets that supported claims address by meaning only, none by its words."""
    supported = [v for v in verified if v.supported and v.relevance is not None]
    by_words = {i for v in supported for i in v.addressed if i not in v.relevance.by_meaning}
    return {i for v in supported for i in v.relevance.by_meaning} - by_words


def _untyped(verified: Sequence[VerifiedClaim]) -> set[int]:
    """The facets of no known kind that supported claims address (``Relevance.untyped``)."""
    return {i for v in verified if v.supported and v.relevance is not None for i in v.relevance.untyped}


def claims_summary(verified: Sequence[VerifiedClaim], *, answer_coverage: float | None = None) -> dict:
    """Claim-level confidence of a text: the turn confidence (mean claim confidence scaled
    by ``answer_coverage``, :func:`verification.scoring.turn_confidence`; unscaled when
    None; at most :data:`retrieval.relevance.MEANING_SCORE` when a facet is answered by
    meaning only or is of no known kind, so no slot was checked), its level, per-level
    counts, the unsupported claims, the answer coverage and the outcome, and
    recommendations."""
    outcome = outcome_for(answer_coverage) if answer_coverage is not None else ""
    if not verified:
        return {
            "mean": 0.0, "level": confidence_level(0.0), "claims": 0, "unsupported": [],
            "answer_coverage": answer_coverage, "outcome": outcome,
            "recommendations": ["No verifiable claims: the answer states no sourced facts."],
        }
    claims_mean = statistics.fmean(v.confidence for v in verified)
    mean = claims_mean if answer_coverage is None else turn_confidence(claims_mean, answer_coverage)
    by_meaning = _by_meaning_only(verified) if answer_coverage is not None else set()
    untyped = _untyped(verified) if answer_coverage is not None else set()
    if by_meaning or untyped:
        # An answer is as sure as its least sure part: a facet that only a reading by
        # meaning answers, or whose asked kind of fact was never checked, keeps the whole
        # answer below Medium (retrieval.relevance).
        mean = min(mean, MEANING_SCORE)
    advice = recommendations([v.judgement.verdict for v in verified], [v.level for v in verified])
    off_topic = sum(1 for v in verified if v.relevance is not None and not v.relevance.relevant)
    if off_topic:
        advice.append(f"{off_topic} claim(s) do not address the question asked.")
    if outcome == Outcome.PARTIAL:
        advice.append("Part of the question is not answered by the documents: see the open points.")
    if by_meaning:
        advice.append("The sources answer in other words than the question uses (matched by meaning, "
                      "not word for word): check that they say what was asked.")
    if untyped:
        advice.append("CIQ could not tell what kind of fact the question asks for (a period, an amount, "
                      "a yes or no with its condition), so it could not check that the sources state it: "
                      "check that they answer what was asked.")
    return {
        "mean": round(mean, 4),
        "claims_mean": round(claims_mean, 4),
        "answer_coverage": answer_coverage,
        "outcome": outcome,
        "level": confidence_level(mean),
        "claims": len(verified),
        "levels": {lvl: sum(1 for v in verified if v.level == lvl)
                   for lvl in ("high", "medium", "low", "very_low")},
        "unsupported": [i for i, v in enumerate(verified, 1) if not v.supported],
        "recommendations": advice,
    }


@transaction.atomic
def ledger_save(
    *, turn, revision, verified: Sequence[VerifiedClaim], chunk_pks: dict[str, int]
) -> list[LedgerEntry]:
    """Write the claims and ledger entries of one revision cycle, all or nothing.

    ``chunk_pks`` maps chunk ids of the turn's context to Chunk primary keys, so the
    evidence chunk is linked without a query per claim.
    """
    claims = Claim.objects.bulk_create(
        Claim(
            turn=turn, revision=revision, index=i, text=v.draft.text, type=v.draft.type,
            span_start=v.draft.span[0], span_end=v.draft.span[1],
            cited_chunk_ids=list(v.draft.cited_chunk_ids),
            substantive_words=[list(w) for w in v.draft.substantive_words],
        )
        for i, v in enumerate(verified, 1)
    )
    return LedgerEntry.objects.bulk_create(
        LedgerEntry(
            claim=claim, verdict=v.judgement.verdict, score=round(v.judgement.score, 4),
            confidence=round(v.confidence, 4), level=v.level,
            evidence_id=chunk_pks.get(v.judgement.evidence_chunk_id),
            evidence_chunk_id=v.judgement.evidence_chunk_id, snippet=v.judgement.snippet,
            reasoning=v.judgement.reasoning,
            supporting_chunk_ids=list(v.judgement.supporting_chunk_ids),
            contradicting_chunk_ids=list(v.judgement.contradicting_chunk_ids),
            verification_ms=round(v.ms, 3),
            relevance=round(v.relevance.vouched, 4) if v.relevance else 1.0,
            addressed=list(v.addressed),
        )
        for claim, v in zip(claims, verified, strict=True)
    )
