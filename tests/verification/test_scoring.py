"""DESIGN.md §1 formulas: SUScore, claim confidence, levels, recommendations, turn metrics."""

import pytest

from verification.models import ConfidenceLevel, Verdict
from verification.scoring import (
    claim_confidence,
    confidence_level,
    ledger_metrics,
    paragraph_count,
    recommendations,
    su_score,
)

S, W, N, C = Verdict.SUPPORTED, Verdict.WEAK, Verdict.NOT_FOUND, Verdict.CONTRADICTED


def test_the_worked_example_of_the_design_is_medium_confidence():
    conf = claim_confidence(0.9, 0.8, 2)
    assert conf == pytest.approx(0.5 * 0.9 + 0.3 * 0.8 + 0.2 * 2 / 3)
    assert conf == pytest.approx(0.8233, abs=1e-4)
    assert confidence_level(conf) == ConfidenceLevel.MEDIUM


def test_supporting_sources_count_up_to_three():
    assert claim_confidence(1.0, 1.0, 3) == pytest.approx(1.0)
    assert claim_confidence(1.0, 1.0, 7) == pytest.approx(1.0)
    assert claim_confidence(0.0, 0.0, 0) == 0.0


def test_su_score_weighs_missing_words_by_importance():
    words = [("Bureau", 1.0), ("30", 0.95), ("notice", 0.8), ("publish", 0.7)]
    # Only the numeral is unsupported: 1 - 0.95 / 3.45.
    assert su_score(words, [1.0, 0.0, 1.0, 1.0]) == pytest.approx(1 - 0.95 / 3.45)
    # Partial support counts partly: 1 - (0.5 * 0.8) / 3.45.
    assert su_score(words, [1.0, 1.0, 0.5, 1.0]) == pytest.approx(1 - 0.4 / 3.45)


def test_su_score_of_a_claim_without_substantive_words_is_one():
    assert su_score([], []) == 1.0


def test_su_score_needs_one_score_per_word():
    with pytest.raises(ValueError):
        su_score([("Bureau", 1.0)], [])


@pytest.mark.parametrize(
    ("conf", "level"),
    [
        (0.85, "high"), (0.8499, "medium"), (0.70, "medium"),
        (0.6999, "low"), (0.50, "low"), (0.4999, "very_low"),
    ],
)
def test_confidence_levels_have_the_design_thresholds(conf, level):
    assert confidence_level(conf) == level


def test_recommendations_name_each_problem_with_its_count():
    advice = recommendations([S, N, N, C, W], ["high", "very_low", "low", "very_low", "medium"])
    assert advice == [
        "1 claim(s) contradict their sources: revise or remove them.",
        "2 claim(s) lack source support.",
        "1 claim(s) are only partly supported: check the cited passages.",
        "3 claim(s) have low confidence: verify them before relying on the answer.",
    ]


def test_a_clean_ledger_needs_no_recommendations():
    assert recommendations([S, S], ["high", "medium"]) == []


TEXT = """## Federal

First paragraph [cite:0123456789ab]. Second sentence [cite:0123456789ab].

Another paragraph [cite:0123456789ac].

### Required permits and licenses
"""


def test_paragraphs_exclude_headings_and_blank_lines():
    assert paragraph_count(TEXT) == 2


def test_turn_metrics_follow_the_design_formulas():
    metrics = ledger_metrics([S] * 18 + [N, C], TEXT, citations=3)
    assert metrics["claims"] == 20
    assert metrics["counts"] == {"supported": 18, "weak": 0, "not_found": 1, "contradicted": 1}
    assert metrics["evidence_coverage"] == pytest.approx(0.9)
    assert metrics["citation_density"] == pytest.approx(1.5)
    assert metrics["contradiction_rate"] == pytest.approx(0.05)
    assert metrics["gap_rate"] == pytest.approx(0.05)
    assert metrics["targets_met"] == {
        "evidence_coverage": True,
        "citation_density": True,
        "contradiction_rate": False,
        "gap_rate": True,
    }


def test_zero_claims_do_not_divide_by_zero():
    metrics = ledger_metrics([], "", citations=0)
    assert metrics["evidence_coverage"] == 0.0
    assert metrics["citation_density"] == 0.0
    assert metrics["contradiction_rate"] == 0.0
    assert metrics["gap_rate"] == 0.0
    assert metrics["targets_met"]["evidence_coverage"] is False


def test_a_judge_without_per_word_support_gets_its_score_for_every_word():
    from verification.judge import Judgement
    from verification.services import claim_verify
    from verification.skeptic import ClaimDraft

    class PlainJudge:
        def verify(self, claim, evidence, *, mode):
            return Judgement("weak", 0.6, "", "", "partial", (), (), ())

    claim = ClaimDraft("Docks need a permit.", "policy", (0, 20), (),
                       (("Docks", 0.8), ("permit", 0.8)))
    verified = claim_verify(claim=claim, evidence=[], mode="strict", judge=PlainJudge())
    assert verified.su_score == pytest.approx(0.6)
    assert verified.confidence == pytest.approx(0.5 * 0.6 + 0.3 * 0.6)
