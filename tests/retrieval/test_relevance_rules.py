"""Relevance rules that hand-written questions need (issue 9): a long story before the
question does not drown what is asked, a cost stated as a rate is a cost, a condition
says what has to happen, and the lexicon does not join words that only share a stem."""

import pytest

from retrieval.lexicon import alternatives
from retrieval.plan import question_plan
from retrieval.question import question_analyse
from retrieval.relevance import sentence_relevance, term_weights

IDF = {"regist": 2.7, "state": 1.2, "aviat": 4.4, "depart": 2.5, "move": 2.0, "cessna": 9.0,
       "hangar": 9.0, "bend": 3.8, "good": 1.2, "aircraft": 3.0, "owner": 2.5}


def test_a_long_story_before_the_question_weighs_at_most_half_of_the_question():
    analysis = question_analyse("A client just moved his Cessna to a hangar in Bend for good. How long "
                                "does he have to register it with the state aviation department?")
    facet = analysis.facets[0]
    weights = dict(zip((t.key for t in facet.terms), term_weights(facet.terms, IDF), strict=True))
    told = sum(w for t, w in zip(facet.terms, weights.values(), strict=True) if t.told)
    asked = sum(w for t, w in zip(facet.terms, weights.values(), strict=True) if not t.told)
    assert told <= 0.5 * asked + 1e-9
    rule = "The owner of a civil aircraft based in Oregon shall register the aircraft within 60 days."
    assert sentence_relevance(analysis, rule, context="Oregon Department of Aviation",
                              idf=IDF).addressed == (0,)
    # The story still counts when nothing else tells two sentences apart.
    story = sentence_relevance(analysis, "An aircraft kept in a hangar in Bend shall be registered "
                               "with the state within 60 days.", idf=IDF)
    assert max(story.coverage) > max(sentence_relevance(analysis, rule, idf=IDF).coverage)


def test_a_short_question_keeps_its_story_at_half_weight_each():
    analysis = question_analyse("My dock is rotting. How far may a new dock extend?")
    facet = analysis.facets[0]
    weights = term_weights(facet.terms, {"dock": 4.0, "rot": 4.0, "extend": 2.0, "new": 1.0})
    assert [round(w, 2) for w, t in zip(weights, facet.terms, strict=True) if t.told] == [2.0]


def test_a_cost_stated_as_a_rate_answers_what_it_costs():
    analysis = question_analyse("If the distributor pays an invoice late, what does it cost them?")
    assert analysis.facets[0].unit == "money"
    rate = ("Amounts not timely paid by the Distributor shall be subject to a late charge equal to "
            "one and one-half percent (1.5%) per month on the invoice.")
    assert sentence_relevance(analysis, rate).addressed == (0,)
    share = "The Distributor shall pay invoices late only with consent of 51% of the board."
    assert sentence_relevance(analysis, share).addressed == ()


def test_a_condition_says_what_has_to_happen():
    analysis = question_analyse("What has to happen for information shared on a phone call to be "
                                "protected as confidential?")
    condition = ("Information disclosed orally is protected as Confidential Information provided that it "
                 "is identified as confidential at the time it is disclosed.")
    assert sentence_relevance(analysis, condition).addressed == (0,)


def test_words_that_only_share_a_stem_are_not_synonyms():
    assert ("written",) not in alternatives(("sign",))  # a sign permit is not a signed writing
    assert ("amount",) not in alternatives(("fee",))  # "in an amount not less than $5,000" is no fee
    assert ("complaint",) not in alternatives(("charg",))  # what the city charges is not a charge sheet
    assert ("void",) in alternatives(("expir",)) and ("obtain",) in alternatives(("pull",))


@pytest.mark.django_db
def test_a_party_named_in_full_is_scope_when_the_documents_know_part_of_it(demo_workspace):
    analysis, routing = question_plan("In the Tripath deal with Bob Uniquest, can Uniquest ship unsold "
                                      "products back?", workspace=demo_workspace)
    assert "Uniquest" in routing.parties and "Bob Uniquest" in routing.names
    assert "bob" not in {t.key for t in analysis.topic}  # "Bob" names the party, not the topic


def test_contractions_are_not_topic_terms():
    analysis = question_analyse("The patient hasn't paid and doesn’t answer. Can we send the claim "
                                "to collections?")
    assert not {"hasn't", "doesn", "hasn"} & {t.key for t in analysis.topic}
