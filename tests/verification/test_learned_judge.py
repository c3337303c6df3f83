"""The Judge's learned stage on hand-written pairs of real corpus text: modal phrases,
clashing pairs a reviewer can check (numbers, modality, negation, parties), the aligned
sentence, and a deterministic fit."""

import numpy as np

from verification.clash import restates
from verification.classifier import _gate, load_weights, probabilities
from verification.features import NAMES, modal_of, negations, parties, read_pair
from verification.judge import EvidenceChunk, RuleJudge
from verification.models import Verdict
from verification.skeptic import ClaimDraft, claim_type, substantive_words
from verification.training.fit import fit_logistic

# 12 CFR 1030.5(a)(1) and a CUAD licence agreement, as in the corpus.
NOTICE = ("The notice shall include the effective date of the change. The notice shall be "
          "mailed or delivered at least 30 calendar days before the effective date of the change.")
MEDIA = ("Licensee may return any defective media to Licensor for replacement free of charge "
         "during such twelve (12) month period.")


def _read(claim: str, evidence: str):
    return read_pair(claim, evidence, coverage=1.0, rule_verdict="supported", rule_clash="",
                     missing_anywhere=0.0, novel_terms=0, evidence_terms=set())


def test_modal_phrases_read_as_the_modal_they_stand_for():
    assert modal_of("A servicer is required to perform an analysis")[0] == "must"
    assert modal_of("The creditor is prohibited from asking")[0] == "must_not"
    assert modal_of("A person does not have to give a notice")[0] == "need_not"
    assert modal_of("The issuer is allowed to use a third party")[0] == "may"
    assert negations("shall not extend more than 20 feet") == 0
    assert negations("that appraisal does not suffice") == 1


def test_a_changed_period_names_the_clashing_pair():
    reading = _read(NOTICE.split(". ")[1].replace("30", "60"), NOTICE)
    assert "claim: 60 calendar days / evidence: 30 calendar days" in reading.clashes
    assert reading.values[NAMES.index("number_conflict")] > 0


def test_a_flipped_modality_names_both_modals():
    reading = _read("The notice may be mailed at least 30 calendar days before the change.", NOTICE)
    assert reading.values[NAMES.index("modal_may_vs_must")] == 1.0
    assert 'claim: "may" / evidence: "shall"' in reading.clashes


def test_swapped_parties_are_a_clash():
    swapped = "Licensor may return any defective media to Licensee for replacement free of charge."
    assert parties(MEDIA)[:2] == ["license", "licensor"] or len(parties(MEDIA)) >= 2
    reading = _read(swapped, MEDIA)
    assert reading.values[NAMES.index("party_swap")] == 1.0
    assert any("acts" in c for c in reading.clashes)
    assert _read(MEDIA, MEDIA).values[NAMES.index("party_swap")] == 0.0


def test_the_fit_is_deterministic():
    rng = np.random.default_rng(0)
    x = np.hstack([np.ones((60, 1)), rng.normal(size=(60, 3))])
    y = np.arange(60) % 3
    assert fit_logistic(x, y) == fit_logistic(x, y)


def test_shipped_weights_match_the_feature_list():
    weights = load_weights()
    assert weights is not None, "verification/data/judge_weights.json ships with the code"
    assert weights["features"] == list(NAMES)
    p = probabilities([1.0] + [0.0] * (len(NAMES) - 1), weights["lexical"])
    assert p.shape == (3,) and abs(p.sum() - 1.0) < 1e-9


def test_the_learned_judge_reports_the_aligned_sentence_and_clash(monkeypatch):
    monkeypatch.setenv("CIQ_JUDGE_LEARNED", "on")
    monkeypatch.setenv("CIQ_JUDGE_MINILM", "off")
    assert load_weights() is not None, "verification/data/judge_weights.json ships with the code"
    chunk = EvidenceChunk("a1a1a1a1a1a1", NOTICE)
    text = "The notice shall be mailed or delivered at least 10 calendar days before the change."
    claim = ClaimDraft(text, claim_type(text), (0, len(text)), (chunk.chunk_id,),
                       substantive_words(text))
    judgement = RuleJudge().verify(claim, [chunk])
    assert judgement.verdict == Verdict.CONTRADICTED
    assert "10 calendar days" in judgement.clash_pair and "30 calendar days" in judgement.clash_pair
    assert "30 calendar days" in judgement.aligned


# 12 CFR 1014.5(a): a long sentence of which a claim restates one part.
RECORDS = ("(a) Any person subject to this part shall keep, for a period of twenty-four months from "
           "the last date the person made or disseminated the applicable commercial communication "
           "regarding any term of any mortgage credit product, the following evidence of "
           "compliance with this part: (1) Copies of all materially different commercial "
           "communications as well as sales scripts, training materials, and marketing materials, "
           "regarding any term of any mortgage credit product, that the person made or "
           "disseminated during the relevant time period;")


MUST_RETURN = "Licensee must return any defective media to Licensor for replacement free of charge."


def test_the_classifier_overrules_the_rules_only_on_a_sentence_that_restates_the_claim():
    claim = "Any person subject to this part may keep sales scripts."
    assert not restates(claim, RECORDS)
    assert restates(MUST_RETURN, MEDIA)
    clashing = _read(MUST_RETURN, MEDIA)
    assert clashing.clashes
    # Another clause of a long sentence is not the claim's: the rule verdict stands.
    assert _gate("weak", "supported", 0.99, _read(claim, RECORDS), restated=False) == "not_supported"
    assert _gate("supported", "contradicted", 0.01, clashing, restated=False) == "supported"
    assert _gate("weak", "supported", 0.99, clashing, restated=True) == "supported"
    assert _gate("supported", "contradicted", 0.01, clashing, restated=True) == "contradicted"
