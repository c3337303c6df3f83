"""The rule-based Skeptic: claims, spans, citations, types and substantive words."""


from verification.models import ClaimType
from verification.skeptic import RuleSkeptic, claim_type, substantive_words

A, B, C = "0123456789ab", "abcdef012345", "fedcba987654"

ANSWER = f"""## Federal

The appropriate official of any state that receives an exemption shall inform the Bureau
in writing within 30 days of any change in the state laws. [cite:{A}] Notice of the
exemption shall be published in the Federal Register [cite:{A}][cite:{B}].

## Municipal

### Required permits and licenses

- The dock shall not exceed 12 feet in width and 20 feet in length. [cite:{C}]
- Dock materials shall be environmentally benign [cite:{C}].

Not found in available sources.
"""


def claims():
    return RuleSkeptic().extract(ANSWER)


def test_each_cited_sentence_is_one_claim_and_headings_are_skipped():
    texts = [c.text for c in claims()]
    assert texts == [
        "The appropriate official of any state that receives an exemption shall inform the Bureau"
        " in writing within 30 days of any change in the state laws.",
        "Notice of the exemption shall be published in the Federal Register.",
        "The dock shall not exceed 12 feet in width and 20 feet in length.",
        "Dock materials shall be environmentally benign.",
    ]


def test_spans_map_back_to_the_sentence_in_the_text():
    for claim in claims():
        original = ANSWER[claim.span[0] : claim.span[1]]
        assert original.startswith(claim.text.split()[0])
        assert "[cite:" in original
        assert not original.startswith(("-", " ", "#"))


def test_a_marker_after_the_final_period_belongs_to_the_sentence_it_follows():
    first, second, *_ = claims()
    assert first.cited_chunk_ids == (A,)
    assert second.cited_chunk_ids == (A, B)


def test_the_refusal_sentence_is_not_a_claim():
    assert not any("Not found" in c.text for c in claims())


def test_an_uncited_sentence_is_a_claim_without_ids():
    (claim,) = RuleSkeptic().extract("Permits are issued by the City Recorder.")
    assert claim.cited_chunk_ids == ()
    assert claim.span == (0, len("Permits are issued by the City Recorder."))


def test_several_ids_in_one_marker_are_all_kept():
    (claim,) = RuleSkeptic().extract(f"Docks are a permitted use [cite:{A}, {B}].")
    assert claim.cited_chunk_ids == (A, B)


def test_claim_types_follow_the_surface_rules():
    assert claim_type("A report is due within 30 days of the change.") == ClaimType.TEMPORAL
    assert claim_type("The fee is $250 per application.") == ClaimType.NUMERIC
    comparative = "The dock must be more than 10 feet shorter than the lot."
    assert claim_type(comparative) == ClaimType.COMPARATIVE
    assert claim_type("The ordinance was adopted because of flooding.") == ClaimType.CAUSAL
    assert claim_type("Debt collectors must not contact consumers at work.") == ClaimType.POLICY
    assert claim_type("The Council should consider a longer season.") == ClaimType.OPINION
    assert claim_type("The park is owned by the City.") == ClaimType.FACTUAL


def test_substantive_words_carry_the_design_importances():
    sentence = "The Bureau shall publish the notice within 30 days in Washington."
    words = dict(substantive_words(sentence))
    assert words["Bureau"] == 1.0
    assert words["Washington"] == 1.0
    assert words["30"] == 0.95
    assert words["publish"] == 0.7
    assert words["notice"] == 0.8
    assert "the" not in words and "shall" not in words


def test_money_percentages_and_section_numbers_are_numerals():
    words = dict(substantive_words("Under § 1006.6(a) the fee is $1,250 or 5% of the claim."))
    assert words["§ 1006.6(a)"] == 0.95
    assert words["$1,250"] == 0.95
    assert words["5%"] == 0.95


def test_a_sentence_initial_name_is_a_proper_noun_but_an_ordinary_first_word_is_not():
    name = dict(substantive_words("Malcolm Smith was named the most valuable player."))
    assert name["Malcolm"] == 1.0
    assert dict(substantive_words("Debt collectors must send a notice."))["Debt"] == 0.8


def test_a_one_page_answer_splits_into_the_same_claims_each_time():
    # Speed is measured by `evaluate verification`, not asserted with a timer here.
    page = "\n\n".join([ANSWER] * 4)
    skeptic = RuleSkeptic()
    first, second = skeptic.extract(page), skeptic.extract(page)
    assert first == second and len(first) == 4 * len(skeptic.extract(ANSWER))
