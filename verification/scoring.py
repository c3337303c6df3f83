"""Claim confidence, SUScore, recommendations and turn metrics: the formulas of DESIGN.md §1.

Each formula lives here once. The Judge reports per-word support in
``Judgement.word_scores`` (aligned with ``ClaimDraft.substantive_words``; 1.0 = the word is
in the best evidence, 0.5 = only elsewhere in the counted evidence, 0.0 = absent or
clashing), and :func:`su_score` turns it into the SUScore.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.models import ConfidenceLevel, Verdict
from verification.skeptic import template_masked

# Turn-metric targets (DESIGN.md §1, "turn metrics").
COVERAGE_TARGET = 0.85
CITATION_DENSITY_TARGET = 1.5
CONTRADICTION_RATE_MAX = 0.02
GAP_RATE_MAX = 0.05

_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}(\s|$)")


def su_score(substantive_words: Sequence[tuple[str, float]], word_scores: Sequence[float]) -> float:
    """SUScore = 1 − Σ(importance × (1 − score)) / Σ importance (DESIGN.md §1).

    The sum runs over the claim's substantive words, and "score" is read as each word's
    support by the evidence (the Judge's per-word scores); with one judge score for every
    word the formula would collapse to that score. A backend that gives no per-word
    support gets exactly that literal reading (``verification.services.claim_verify``).

    ``substantive_words``: ``[(word, importance), ...]`` from the Skeptic (importance 1.0 /
    0.95 / 0.8 / 0.7); ``word_scores``: per-word support in [0, 1] aligned with it (the
    Judge's ``Judgement.word_scores``). Returns a float in [0, 1]; 1.0 for a claim with no
    substantive words (nothing to support). Raises ``ValueError`` when the lengths differ.
    """
    if len(substantive_words) != len(word_scores):
        raise ValueError(
            f"{len(substantive_words)} substantive words but {len(word_scores)} word scores"
        )
    total = sum(importance for _, importance in substantive_words)
    if total <= 0:
        return 1.0
    missing = sum(
        importance * (1.0 - min(max(score, 0.0), 1.0))
        for (_, importance), score in zip(substantive_words, word_scores, strict=False)
    )
    return 1.0 - missing / total


def claim_confidence(judge_score: float, su_score: float, supporting_sources: int,
                     relevance: float = 1.0) -> float:
    """Claim confidence = (0.5 × judge score + 0.3 × SUScore + 0.2 × min(sources / 3, 1))
    × relevance.

    DESIGN.md §1; the relevance factor is issue 9's rule that confidence needs support
    *and* relevance: a well-supported sentence that addresses no facet of the question
    (``verification.relevance``, score < 1) cannot reach a high level. ``judge_score``,
    ``su_score`` and ``relevance`` in [0, 1]; ``supporting_sources`` is the number of
    distinct chunks supporting the claim (negative counts as 0). Returns [0, 1].
    """
    sources = min(max(supporting_sources, 0) / 3.0, 1.0)
    relevance = min(max(relevance, 0.0), 1.0)
    return (0.5 * judge_score + 0.3 * su_score + 0.2 * sources) * relevance


def turn_confidence(mean_claim_confidence: float, answer_coverage: float) -> float:
    """A turn's claim-level confidence = mean claim confidence × (0.5 + 0.5 × answer
    coverage), in [0, 1].

    Issue 9: "Verified" and High need support, relevance and answer coverage. An answer
    that leaves a facet open (coverage < 1) is scaled to at most 0.75 of its claims'
    confidence, so it cannot be High (≥ 0.85) and is Medium at best; one that answers
    nothing (coverage 0) is at most half, Low at best.
    """
    coverage = min(max(answer_coverage, 0.0), 1.0)
    return mean_claim_confidence * (0.5 + 0.5 * coverage)


def confidence_level(conf: float) -> str:
    """The :class:`ConfidenceLevel` value of a claim confidence (DESIGN.md §1):
    high ≥ 0.85, medium ≥ 0.70, low ≥ 0.50, else very_low."""
    if conf >= 0.85:
        return ConfidenceLevel.HIGH.value
    if conf >= 0.70:
        return ConfidenceLevel.MEDIUM.value
    if conf >= 0.50:
        return ConfidenceLevel.LOW.value
    return ConfidenceLevel.VERY_LOW.value


def recommendations(verdicts: Sequence[str], levels: Sequence[str]) -> list[str]:
    """Plain-language advice for a turn's ledger (DESIGN.md §1, "Recommendations such as
    '2 claim(s) lack source support.'").

    ``verdicts``: one :class:`Verdict` value per claim; ``levels``: one
    :class:`ConfidenceLevel` value per claim. Returns the sentences in a fixed order
    (contradictions, gaps, weak support, low confidence); empty when nothing needs doing.
    """
    out: list[str] = []
    contradicted = sum(v == Verdict.CONTRADICTED for v in verdicts)
    missing = sum(v == Verdict.NOT_FOUND for v in verdicts)
    weak = sum(v == Verdict.WEAK for v in verdicts)
    low = sum(level in (ConfidenceLevel.LOW, ConfidenceLevel.VERY_LOW) for level in levels)
    if contradicted:
        out.append(f"{contradicted} claim(s) contradict their sources: revise or remove them.")
    if missing:
        out.append(f"{missing} claim(s) lack source support.")
    if weak:
        out.append(f"{weak} claim(s) are only partly supported: check the cited passages.")
    if low:
        out.append(f"{low} claim(s) have low confidence: verify them before relying on the answer.")
    return out


def paragraph_count(text: str) -> int:
    """Paragraphs of Markdown ``text``: non-empty blocks separated by blank lines, headings
    excluded (a heading line inside a block is dropped from it)."""
    count = 0
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.splitlines() if ln.strip() and not _HEADING_RE.match(ln)]
        if lines:
            count += 1
    return count


def ledger_metrics(verdicts: Sequence[str], text: str, citations: int) -> dict:
    """Turn metrics of DESIGN.md §1 from a turn's verdicts, answer text and citation count.

    Returns ``{"claims", "counts": {verdict: n for all four verdicts}, "evidence_coverage"
    (supported / claims, target ≥ 0.85), "citation_density" (citations / paragraph, target
    ≥ 1.5), "contradiction_rate" (contradicted / claims, ≤ 0.02), "gap_rate" (not_found /
    claims, ≤ 0.05), "paragraphs", "citations", "targets_met": {"evidence_coverage",
    "citation_density", "contradiction_rate", "gap_rate": bool}}``. With zero claims the
    rates are 0.0 (so coverage misses its target); with zero paragraphs density is 0.0.
    """
    claims = len(verdicts)
    counts = {v.value: sum(x == v for x in verdicts) for v in Verdict}
    # A memo's header and template sections are not paragraphs of claims (issue 13).
    paragraphs = paragraph_count(template_masked(text))

    def rate(n: int) -> float:
        return n / claims if claims else 0.0

    coverage = rate(counts[Verdict.SUPPORTED.value])
    contradiction = rate(counts[Verdict.CONTRADICTED.value])
    gap = rate(counts[Verdict.NOT_FOUND.value])
    density = citations / paragraphs if paragraphs else 0.0
    return {
        "claims": claims,
        "counts": counts,
        "paragraphs": paragraphs,
        "citations": citations,
        "evidence_coverage": coverage,
        "citation_density": density,
        "contradiction_rate": contradiction,
        "gap_rate": gap,
        "targets_met": {
            "evidence_coverage": claims > 0 and coverage >= COVERAGE_TARGET,
            "citation_density": density >= CITATION_DENSITY_TARGET,
            "contradiction_rate": claims > 0 and contradiction <= CONTRADICTION_RATE_MAX,
            "gap_rate": claims > 0 and gap <= GAP_RATE_MAX,
        },
    }
