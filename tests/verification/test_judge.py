"""The deterministic Judge on real sample text: supported, changed numbers, flipped
modality, negation, exceptions, unrelated claims, strict vs helpful mode, and speed."""

from pathlib import Path

import pytest
from django.conf import settings

from verification.judge import EvidenceChunk, RuleJudge, prepare_chunk, split_sentences
from verification.models import Verdict
from verification.skeptic import ClaimDraft, claim_type, substantive_words

SAMPLES = Path(settings.BASE_DIR) / "samples"
FDCPA = SAMPLES / "federal/us-cfr-12/12cfr1006_fair_debt_collection_practices_act.txt"
ORDINANCES = SAMPLES / "municipal/us-or-rivergrove/ordinances"
NDA = SAMPLES / "private/contractnli/cnli_435_1013322_0000912057-00-023405_document_2.txt"
CFR, DOCK, PARK, OTHER, CONTRACT = (
    "a1a1a1a1a1a1", "b2b2b2b2b2b2", "c3c3c3c3c3c3", "d4d4d4d4d4d4", "e5e5e5e5e5e5"
)

REPORT = (
    "The appropriate official of a state that receives an exemption shall inform the Bureau "
    "in writing within {} days of any change in the state laws."
)
EFFECTIVE = (
    "An exemption granted is effective {} days after publication of the notice in the "
    "Federal Register."
)
PARK_HOURS = "From May through October, the park and river access shall be open from 8:00 am to {}."


def _section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end)]


@pytest.fixture(scope="module")
def evidence() -> list[EvidenceChunk]:
    cfr = FDCPA.read_text()
    return [
        EvidenceChunk(CFR, _section(cfr, "§ 1006.6 Exemption", "§ 1006.7 Adverse")),
        EvidenceChunk(DOCK, (ORDINANCES / "2017-Ord-88-2017-Docks.md").read_text()),
        EvidenceChunk(PARK, (ORDINANCES / "2011-Ord-80-2011-Park-Hours.md").read_text()),
        EvidenceChunk(OTHER, _section(cfr, "§ 1006.7 Adverse", "§ 1006.8")),
        EvidenceChunk(CONTRACT, NDA.read_text()[:6000]),
    ]


def claim(text: str, *cited: str) -> ClaimDraft:
    return ClaimDraft(text, claim_type(text), (0, len(text)), cited, substantive_words(text))


def judge(evidence, text: str, *cited: str, mode: str = "strict"):
    return RuleJudge().verify(claim(text, *cited), evidence, mode=mode)


def verdict(evidence, text: str, *cited: str, mode: str = "strict") -> str:
    return judge(evidence, text, *cited, mode=mode).verdict


def test_a_claim_restating_its_source_is_supported(evidence):
    judgement = judge(evidence, REPORT.format(30), CFR)
    assert judgement.verdict == Verdict.SUPPORTED
    assert judgement.score >= 0.9
    assert judgement.evidence_chunk_id == CFR
    assert "within 30 days" in judgement.snippet
    assert judgement.snippet in evidence[0].text
    assert judgement.supporting_chunk_ids == (CFR,)
    assert set(judgement.word_scores) == {1.0}
    assert len(judgement.word_scores) == len(claim(REPORT.format(30)).substantive_words)


def test_a_changed_number_is_contradicted(evidence):
    judgement = judge(evidence, REPORT.format(60), CFR)
    assert judgement.verdict == Verdict.CONTRADICTED
    assert "30 days" in judgement.reasoning and "60 days" in judgement.reasoning
    assert judgement.contradicting_chunk_ids == (CFR,)
    assert judgement.score < 0.4
    assert 0.0 in judgement.word_scores


def test_a_changed_effective_date_is_contradicted(evidence):
    assert verdict(evidence, EFFECTIVE.format(90), CFR) == Verdict.SUPPORTED
    assert verdict(evidence, EFFECTIVE.format(45), CFR) == Verdict.CONTRADICTED


def test_a_number_written_in_words_matches_its_digits(evidence):
    text = "Oral disclosures shall be confirmed in writing within {} days of such disclosure."
    assert verdict(evidence, text.format(30), CONTRACT) == Verdict.SUPPORTED
    assert verdict(evidence, text.format(10), CONTRACT) == Verdict.CONTRADICTED


def test_a_changed_time_of_day_is_contradicted(evidence):
    assert verdict(evidence, PARK_HOURS.format("9:00 pm"), PARK) == Verdict.SUPPORTED
    assert verdict(evidence, PARK_HOURS.format("11:00 pm"), PARK) == Verdict.CONTRADICTED


def test_must_turned_into_may_is_contradicted(evidence):
    text = (
        "The appropriate official of a state that receives an exemption may inform the Bureau "
        "of any change in the state laws."
    )
    judgement = judge(evidence, text, CFR)
    assert judgement.verdict == Verdict.CONTRADICTED
    assert "requires" in judgement.reasoning and "permits" in judgement.reasoning


def test_shall_not_turned_into_may_is_contradicted(evidence):
    kept = "The dock shall not exceed 12 feet in width and 20 feet in length."
    assert verdict(evidence, kept, DOCK) == Verdict.SUPPORTED
    assert verdict(evidence, "The dock may exceed 12 feet in width.", DOCK) == Verdict.CONTRADICTED


def test_a_negated_requirement_is_contradicted(evidence):
    kept = "The ramp to the dock shall be hinged to allow for rise in floodwater."
    negated = "The ramp to the dock is not required to be hinged."
    assert verdict(evidence, kept, DOCK) == Verdict.SUPPORTED
    assert verdict(evidence, negated, DOCK) == Verdict.CONTRADICTED


def test_denying_a_prohibition_is_contradicted(evidence):
    text = "An exemption shall extend to the civil liability provisions of section 813 of the Act."
    judgement = judge(evidence, text, CFR)
    assert judgement.verdict == Verdict.CONTRADICTED
    assert "No exemption shall extend" in judgement.reasoning


def test_a_negation_after_the_verb_counts(evidence):
    kept = "Dock materials shall be environmentally benign and composed of no toxic chemicals."
    flipped = "Dock materials may be composed of toxic chemicals."
    assert verdict(evidence, kept, DOCK) == Verdict.SUPPORTED
    assert verdict(evidence, flipped, DOCK) == Verdict.CONTRADICTED


def test_a_permission_inside_a_scope_limit_is_supported(evidence):
    text = (
        "Each party may disclose Confidential Information of the other party to its employees "
        "who need to know such information."
    )
    assert verdict(evidence, text, CONTRACT) == Verdict.SUPPORTED


def test_a_permission_the_exception_does_not_cover_is_contradicted(evidence):
    text = "Each party may disclose Confidential Information of the other party to any person."
    assert verdict(evidence, text, CONTRACT) == Verdict.CONTRADICTED


def test_an_unrelated_claim_is_not_found(evidence):
    text = "Commercial fishing licenses cost $400 per year in Oregon."
    judgement = judge(evidence, text, CFR, DOCK)
    assert judgement.verdict == Verdict.NOT_FOUND
    assert judgement.score < 0.3
    assert "missing" in judgement.reasoning or "no evidence" in judgement.reasoning


def test_a_partial_match_is_not_supported(evidence):
    text = "Dock materials shall be inspected annually by the county engineer."
    judgement = judge(evidence, text, DOCK)
    assert judgement.verdict in (Verdict.WEAK, Verdict.NOT_FOUND)
    assert "missing" in judgement.reasoning


def test_a_number_the_sources_never_mention_cannot_be_supported(evidence):
    text = "The dock shall not exceed 12 feet in width, under Ordinance 9999."
    judgement = judge(evidence, text, DOCK)
    assert judgement.verdict == Verdict.WEAK
    assert "9999" in judgement.reasoning


def test_the_right_things_with_the_wrong_verb_are_weak(evidence):
    text = "The Bureau revoked the exemption in the Federal Register."
    judgement = judge(evidence, text, CFR, OTHER)
    assert judgement.verdict != Verdict.SUPPORTED


def test_strict_mode_rejects_an_uncited_claim(evidence):
    judgement = judge(evidence, REPORT.format(30), mode="strict")
    assert judgement.verdict == Verdict.NOT_FOUND
    assert judgement.score == 0.0
    assert "cites no source" in judgement.reasoning


def test_strict_mode_only_reads_the_cited_chunks(evidence):
    assert verdict(evidence, REPORT.format(30), DOCK) != Verdict.SUPPORTED
    assert verdict(evidence, REPORT.format(30), DOCK, mode="helpful") == Verdict.SUPPORTED


def test_helpful_mode_finds_evidence_for_an_uncited_claim_in_any_chunk(evidence):
    assert verdict(evidence, REPORT.format(30), mode="helpful") == Verdict.SUPPORTED


def test_helpful_mode_accepts_an_uncited_claim_without_substantive_words(evidence):
    judgement = judge(evidence, "That is all.", mode="helpful")
    assert judgement.verdict == Verdict.SUPPORTED
    assert "minor claim" in judgement.reasoning


def test_citing_a_chunk_that_is_not_in_the_evidence_is_not_found(evidence):
    assert verdict(evidence, REPORT.format(30), "ffffffffffff") == Verdict.NOT_FOUND


def test_an_unknown_mode_is_an_error(evidence):
    with pytest.raises(ValueError):
        judge(evidence, REPORT.format(30), CFR, mode="lenient")


def test_substantive_words_from_json_lists_are_accepted(evidence):
    base = claim(REPORT.format(30), CFR)
    as_json = ClaimDraft(base.text, base.type, base.span, base.cited_chunk_ids,
                         [list(pair) for pair in base.substantive_words])
    assert RuleJudge().verify(as_json, evidence).verdict == Verdict.SUPPORTED


def test_the_snippet_is_verbatim_and_short():
    text = "Preamble words here. " + "The Bureau shall publish notice " * 40 + "within 30 days."
    chunk = EvidenceChunk(CFR, text)
    published = claim("The Bureau shall publish notice within 30 days.", CFR)
    judgement = RuleJudge().verify(published, [chunk])
    assert len(judgement.snippet) <= 410
    assert judgement.snippet.strip("…") in text


def test_the_splitter_keeps_legal_abbreviations_and_section_numbers_together():
    text = "See 15 U.S.C. § 1692g(a) for the notice. The Bureau (a) may act. Sec. 4 applies."
    sentences = [text[s:e] for s, e in split_sentences(text)]
    assert sentences == [
        "See 15 U.S.C. § 1692g(a) for the notice.", "The Bureau (a) may act.", "Sec. 4 applies."
    ]


def test_repeated_verification_of_prepared_chunks_gives_the_same_verdicts(evidence):
    # Time per claim is measured by `evaluate verification`, never asserted with a timer.
    words = " ".join(c.text for c in evidence).split()
    chunks = [
        EvidenceChunk(f"{i:012x}", " ".join(words[i * 300 : (i + 1) * 300])) for i in range(12)
    ]
    chunks = [c for c in chunks if c.text]
    for c in chunks:
        prepare_chunk(c.text)
    ids = tuple(c.chunk_id for c in chunks)
    claims = [claim(REPORT.format(n), *ids) for n in (10, 20, 30, 60)] + [
        claim("The dock shall not exceed 12 feet in width.", *ids),
        claim("The Bureau shall notify the appropriate state official of the facts.", *ids),
    ]
    judge_ = RuleJudge()
    first = [judge_.verify(c, chunks) for c in claims]
    again = [judge_.verify(c, chunks) for c in claims]
    def key(judgements):
        return [(j.verdict, j.score, j.snippet) for j in judgements]

    assert key(first) == key(again)
