"""A question about what a term means is answered by the sentence that defines the term,
whatever words the question uses to describe it (issue 9, ``retrieval.definitions``).
The questions were written for these tests; the sentences are quoted from ciq_legal_v1
documents."""

import pytest

from retrieval.definitions import defines, definiendum
from retrieval.question import question_analyse
from retrieval.relevance import sentence_relevance

# DSP Communications–Intel NDA (private/contractnli/cnli_429_…)
RESIDUALS = ("The term \"Residuals\" means any information retained in the unaided memories of the "
             "receiving party's employees who have had access to the disclosing party's Confidential "
             "Information pursuant to the terms of this Agreement.")
# Ray County zoning, accessory dwelling units (county/us-mo-ray/…)
TYPICAL_USES = ("Typical uses include a “mother-in-law” apartment, guest cottage or domestic employee "
                "quarters.")


@pytest.mark.parametrize("question, term", [
    ("Under the Intel NDA, what counts as 'residuals' that either side may use freely?", ("residu",)),
    ("What is meant by an extended stay hotel in the Samples non-compete?", ("extend", "stai", "hotel")),
    ("How does the Ray County code define a kennel?", ("kennel",)),
    ("What does “med sync” mean for an Oregon pharmacy?", ("med", "sync")),
    ("When does the county treat a car as inoperable?", ("inoper",)),
    ("What makes a shed count as an accessory structure in Rivergrove?", ("accessori", "structur")),
    # no term asked about
    ("Can we cancel the NDA early?", ()),
    ("What does it mean for us?", ()),
])
def test_the_term_a_definition_question_asks_about(question, term):
    assert definiendum(question) == term


def test_a_defining_sentence_defines_its_subject_only():
    assert defines(RESIDUALS, ("residu",))
    assert defines("\"Residual Information\" shall mean any Confidential Information of the disclosing "
                   "party retained in the minds of its employees.", ("residu",))
    # the term is the object of another definition, or a defining verb comes too late
    assert not defines(RESIDUALS, ("confidenti",))
    assert not defines(TYPICAL_USES, ("accessori", "dwell", "unit"))
    assert not defines("The receiving party shall hold the Confidential Information in strict confidence "
                       "and shall not use it for any purpose other than the evaluation, which includes "
                       "residuals.", ("residu",))


def test_a_definition_answers_a_question_that_describes_the_term_in_other_words():
    analysis = question_analyse("In DSP's NDA with Intel, what counts as 'residuals' that either side "
                                "can use freely?")
    assert sentence_relevance(analysis, RESIDUALS).addressed == (0,)
    # a definition of another term stays related, not an answer
    other = ("\"Confidential Information\" means any information disclosed by either party to the other "
             "party, either directly or indirectly, in writing, orally or by inspection.")
    assert sentence_relevance(analysis, other).addressed == ()


def test_a_term_no_sentence_defines_is_not_answered_by_its_examples():
    analysis = question_analyse("How does Ray County zoning define a tiny house?")
    assert sentence_relevance(analysis, TYPICAL_USES).addressed == ()
