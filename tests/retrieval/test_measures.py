"""A yes/no question that states a measure of its case is answered by the rule's threshold
in that measure (issue 9, ``retrieval.measures``). The questions were written for these
tests; the sentences are quoted from ciq_legal_v1 documents."""

import pytest

from retrieval.measures import measure_present, stated_measure
from retrieval.question import question_analyse
from retrieval.relevance import sentence_relevance

# ORS 72A.2010 (state/us-or/ors_chapter_072A.html)
LEASE_THRESHOLD = (
    "(1) A lease contract is not enforceable by way of action or defense unless: (a) The total payments "
    "to be made under the lease contract, excluding payments for options to renew or buy, are less than "
    "$1,000; or (b) There is a writing, signed by the party against whom enforcement is sought or by that "
    "party’s authorized agent, sufficient to indicate that a lease contract has been made between the "
    "parties and to describe the goods leased and the lease term.")
LEASE_NO_THRESHOLD = (
    "(3) A writing is not insufficient because it omits or incorrectly states a term agreed upon, but the "
    "lease contract is not enforceable under subsection (1)(b) of this section beyond the lease term and "
    "the quantity of goods shown in the writing.")


@pytest.mark.parametrize("question, dimension", [
    ("Our client leases a floor polisher for $750 over the whole term. Is the lease enforceable "
     "without anything signed?", "money"),
    ("My client's dock sticks out 25 feet into the river in Rivergrove. Can he keep it?", "size"),
    ("Our client's new garage will be about 22 feet to the peak. Is that too tall in Rivergrove?", "height"),
    ("Is a 6-foot fence allowed along a front yard in Rivergrove?", "height"),
    ("Can we put up a 60-foot cell tower on a farm in Ray County?", "height"),
    ("A loan officer at our bank closed three mortgages this year. Does he need to register?", "count"),
    ("The tenant has been gone for 45 days. May the landlord treat the unit as abandoned?", "period"),
    ("Can a 15-year-old work at the county fair?", "age"),
    # what/how questions name the value they ask for; a year is not a measure
    ("How much does a floor polisher lease have to total before it must be in writing?", ""),
    ("Was the fee schedule changed in 2019?", ""),
    # a number word that opens a name is no count
    ("Does Acme have to pay Seven Hills Partners each time it ships?", ""),
])
def test_a_yes_no_question_states_the_measure_of_its_case(question, dimension):
    analysis = question_analyse(question)
    assert analysis.facets[0].measure == dimension


def test_the_threshold_answers_and_the_rule_without_it_does_not():
    analysis = question_analyse("Our client leases a floor polisher for $750 over the whole term. Is the "
                                "lease enforceable without anything signed in writing?")
    assert sentence_relevance(analysis, LEASE_THRESHOLD).addressed == (0,)
    without = sentence_relevance(analysis, LEASE_NO_THRESHOLD)
    assert without.addressed == () and without.slots == (False,)


@pytest.mark.parametrize("dimension, text, present", [
    # 12 CFR 1007.101(c)(2)(i)
    ("count", "the employee acted as a mortgage loan originator for 5 or fewer residential mortgage loans",
     True),
    ("count", "paragraph (c)(2)(i) of this section", False),
    # a section of a title counts nothing; a count in the question is answered by any measure
    # ("unlawful to keep bees … except … 50 feet from property lines")
    ("count", "as defined in Regulation G, 12 CFR 1007.102, or Regulation H", False),
    ("count", "a system established by the Bureau under 12 U.S.C. 5108 and in accordance with subpart C",
     False),
    ("count", "these requirements must be met within 60 days from the effective date", True),
    ("count", "Five (5) or more persons not related by blood", True),
    # Rivergrove Resolution 2-2001, copies of public records
    ("period", "If the request entails less than one-half (1/2) hour of staff time", True),
    ("period", "the request shall be processed promptly", False),
    ("size", "small accessory buildings not over 120 square feet or a height of 10 feet", True),
    # Rivergrove Ord. 54-89C § 5.090 and § 2.040: a height, not a distance
    ("height", "No new accessory structures may exceed 20 feet in height.", True),
    ("height", "no poultry or livestock … shall be housed within 100 feet of any residence", False),
    ("money", "a fine not to exceed $5,000.00 per tree", True),
    ("money", "a fine as set by resolution of the council", False),
    ("age", "any person under 18 years of age", True),
])
def test_a_sentence_states_a_value_of_the_dimension(dimension, text, present):
    assert measure_present(dimension, text) is present


def test_the_situation_may_state_the_measure():
    assert stated_measure("Does she have to register?",
                          "She only helped originate four home loans this past year.") == "count"
