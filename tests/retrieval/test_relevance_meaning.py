"""A sentence that says the answer in other words addresses the question by meaning, at
Low confidence at most (issue 9), as does one that answers a facet of no known kind. The
questions were written for these tests; the rule sentences are real contract and
ordinance wording."""

import pytest

from retrieval.meaning import minilm as minilm_model
from retrieval.meaning import relevance_by_meaning
from retrieval.question import FactKind, question_analyse
from retrieval.relevance import MEANING_SCORE, Relevance, sentence_relevance
from sessions.models import Outcome, RunStatus
from sessions.services import session_ask
from tests.conftest import minilm
from verification.judge import Judgement
from verification.models import Verdict
from verification.services import VerifiedClaim, claims_summary
from verification.skeptic import ClaimDraft

SECRECY = "How long do the secrecy duties hang around once the deal is over?"
SHIPPING = "When must the seller ship the goods after getting an order?"


def test_reading_by_meaning_follows_the_embedder_unless_told(monkeypatch, settings):
    monkeypatch.delenv("CIQ_RELEVANCE_MINILM", raising=False)
    settings.CIQ_EMBEDDER = "none"
    assert not relevance_by_meaning()
    settings.CIQ_EMBEDDER = "minilm"
    assert relevance_by_meaning()
    monkeypatch.setenv("CIQ_RELEVANCE_MINILM", "off")
    assert not relevance_by_meaning()
    monkeypatch.setenv("CIQ_RELEVANCE_MINILM", "on")
    settings.CIQ_EMBEDDER = "none"
    assert relevance_by_meaning()


@minilm
def test_word_vectors_in_one_batch_equal_one_text_at_a_time():
    texts = ["Either party may terminate this Agreement at any time.", "Short one.",
             "The confidentiality obligations survive termination for three (3) years."]
    model = minilm_model()
    for (spans, one), (spans_many, many) in zip([model.token_vectors(t) for t in texts],
                                                model.token_vectors_many(texts), strict=True):
        assert spans == spans_many
        assert abs(one - many).max() < 1e-4


@minilm
@pytest.mark.parametrize("question, rule", [
    (SECRECY, "The confidentiality obligations under this Agreement will survive termination of this "
              "Agreement for a period of three (3) years."),
    (SHIPPING, "Supplier shall deliver the Products within fifteen (15) days after receipt of a "
               "purchase order."),
])
def test_a_rule_in_other_words_addresses_the_question_by_meaning_only(question, rule):
    analysis = question_analyse(question)
    by_words = sentence_relevance(analysis, rule)
    assert by_words.addressed == () and by_words.near == (0,)
    read = sentence_relevance(analysis, rule, meaning=True)
    assert read.addressed == (0,) and read.by_meaning == (0,)
    assert read.score == MEANING_SCORE and not read.by_words


@minilm
@pytest.mark.parametrize("question, other", [
    # the same frame around another duty: secrecy is not non-solicitation or indemnity
    (SECRECY, "The non-solicitation obligations under this Agreement will survive termination of "
              "this Agreement for a period of one (1) year."),
    (SECRECY, "The indemnification obligations under this Agreement will survive termination of "
              "this Agreement for a period of two (2) years."),
])
def test_meaning_does_not_make_another_duty_the_answer(question, other):
    analysis = question_analyse(question)
    assert sentence_relevance(analysis, other).near == (0,)
    assert sentence_relevance(analysis, other, meaning=True).addressed == ()


@minilm
def test_meaning_never_stands_in_for_a_key_term():
    # "sign" says which permit: a building permit's fee is related, however close in meaning
    analysis = question_analyse("What's the fee for a sign permit?")
    row = "Building permit review fee: $400."
    assert sentence_relevance(analysis, row).near == ()
    assert sentence_relevance(analysis, row, meaning=True).addressed == ()


def _claim(relevance: Relevance) -> VerifiedClaim:
    judgement = Judgement(verdict=Verdict.SUPPORTED, score=0.95, evidence_chunk_id="c1", snippet="…",
                          reasoning="", supporting_chunk_ids=("c1",), contradicting_chunk_ids=())
    return VerifiedClaim(draft=ClaimDraft(text="x", type="factual", span=(0, 1), cited_chunk_ids=("c1",),
                                          substantive_words=()),
                         judgement=judgement, su_score=1.0, confidence=0.95 * relevance.score,
                         level="", ms=1.0, relevance=relevance)


def test_a_facet_answered_by_meaning_only_keeps_the_answer_below_medium():
    words = Relevance((1.0, 0.3), (True, True), (0,), 1.0)
    meaning = Relevance((1.0, 0.3), (True, True), (1,), MEANING_SCORE, by_meaning=(1,))
    summary = claims_summary([_claim(words), _claim(words), _claim(meaning)], answer_coverage=1.0)
    assert summary["mean"] <= MEANING_SCORE and summary["level"] == "low"
    assert any("matched by meaning" in r for r in summary["recommendations"])
    # the same facet also answered by a sentence's words: the answer earns its level
    words_both = Relevance((1.0, 0.9), (True, True), (0, 1), 1.0)
    summary = claims_summary([_claim(words_both), _claim(meaning)], answer_coverage=1.0)
    assert summary["level"] in ("high", "medium")
    assert not any("matched by meaning" in r for r in summary["recommendations"])


def test_a_facet_of_no_known_kind_is_answered_but_never_vouched_for():
    # No slot tells whether the sentence states the asked fact, so the words it shares
    # are all that shows it answers: given, at most Low (the definition of the sewerage
    # system shares "sewer", "force main" and "Lake Oswego" with the question).
    analysis = question_analyse("My septic in Rivergrove works fine, but Lake Oswego keeps sending letters "
                                "about hooking up. What about the sewer main?")
    assert analysis.facets[0].kind == FactKind.GENERAL
    sentence = ('"Sanitary Sewerage System" means any combination of sewer treatment plant, pumping, or '
                "lift facilities, sewer pipe, force mains, laterals, manholes within the jurisdiction of "
                "Lake Oswego")
    read = sentence_relevance(analysis, sentence)
    assert read.addressed == (0,) and read.untyped == (0,) and read.vouched == MEANING_SCORE
    assert read.score == 1.0  # it still ranks before a sentence that does not address the facet
    summary = claims_summary([_claim(read)], answer_coverage=1.0)
    assert summary["level"] == "low" and summary["outcome"] == "answered"
    assert any("could not tell what kind of fact" in r for r in summary["recommendations"])
    # a Draft request's topics are general by design: not capped
    drafted = sentence_relevance(analysis.as_topic(), sentence)
    assert drafted.addressed == (0,) and drafted.untyped == () and drafted.vouched == 1.0
    # once the question's kind is read ("Am I forced to connect?": an obligation) the slot
    # is checked, and a definition holds no duty
    asked = question_analyse("My septic in Rivergrove works fine, but Lake Oswego keeps sending letters "
                             "about hooking up to the sewer main. Am I forced to connect?")
    assert asked.facets[0].kind == FactKind.OBLIGATION
    assert sentence_relevance(asked, sentence).addressed == ()


@minilm
@pytest.mark.django_db
def test_an_ordinance_that_says_it_in_other_words_answers_at_low_confidence(demo_workspace, monkeypatch):
    question = "In Rivergrove, how long do replacement trees have to stay alive after they go in the ground?"
    monkeypatch.setenv("CIQ_RELEVANCE_MINILM", "off")
    turn = session_ask(workspace=demo_workspace, question=question)
    assert turn.status == RunStatus.COMPLETED and turn.outcome == Outcome.NOT_ANSWERED
    monkeypatch.setenv("CIQ_RELEVANCE_MINILM", "on")
    turn = session_ask(workspace=demo_workspace, question=question)
    assert turn.status == RunStatus.COMPLETED and turn.outcome == Outcome.ANSWERED
    assert "five" in turn.answer_markdown.split("\n\n")[0]
    assert turn.claim_confidence["level"] == "low"
    assert any("matched by meaning" in r for r in turn.claim_confidence["recommendations"])


@minilm
def test_a_question_with_no_topic_is_not_answered_by_meaning():
    # "How long does that take?" names nothing a sentence could be about
    analysis = question_analyse("How long does that take?")
    rule = "The Bureau shall decide within thirty (30) days of receipt."
    assert sentence_relevance(analysis, rule, meaning=True).addressed == ()
