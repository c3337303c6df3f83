"""Questions about a contract the question names, on real contracts of the shared corpus
(hand-written questions, not from the dev sets): inside it, its defined terms weigh less
than the asked words (retrieval.specificity), and a chunk that shares a sentence with a
better-ranked neighbour still reaches the Writer (retrieval.search._dedupe)."""

import pytest

from retrieval.plan import question_plan
from retrieval.search import Budget, chunks_retrieve
from retrieval.specificity import (
    MIN_PASSAGES,
    TOPIC_WEIGHT_FLOOR,
    analysis_specific,
    document_passages,
    specificity,
)
from sessions.models import RunStatus
from sessions.services import session_ask
from tests.conftest import CORPUS_DIR, corpus_workspace_of

pytestmark = pytest.mark.django_db

NDA = CORPUS_DIR / "private" / "contractnli" / "cnli_575_1253176_0001193125-18-317778_d567323dex1024.txt"
DISTRIBUTION = CORPUS_DIR / "private" / "cuad" / "ETELOS_INC_03_09_2004-EX-10.8-DISTRIBUTOR_AGREEMENT.txt"
RETURN_QUESTION = "When must John Coolidge return Vapotherm's confidential materials?"


@pytest.fixture
def contracts(db):
    """Vapotherm's NDA with John Coolidge and Tripath's distributor agreement with Uniquest."""
    return corpus_workspace_of("Contracts", NDA, DISTRIBUTION)


def weights(workspace, question: str) -> dict[str, float]:
    analysis, routing = question_plan(question, workspace=workspace)
    assert routing.documents, "the party's name should focus the search on its contract"
    return {t.key: t.weight for f in analysis.facets for t in f.terms}


def test_the_ndas_defined_term_weighs_less_than_the_asked_action(contracts):
    found = weights(contracts, RETURN_QUESTION)
    assert found["return"] == 1.0  # one clause of the NDA speaks of returning
    assert TOPIC_WEIGHT_FLOOR <= found["confidenti"] < 0.6  # "Confidential Information" is everywhere


def test_a_chunk_overlapping_its_neighbour_by_a_sentence_is_kept(contracts):
    analysis, routing = question_plan(RETURN_QUESTION, workspace=contracts)
    result = chunks_retrieve(RETURN_QUESTION, workspace=contracts, budget=Budget.for_mode("answer"),
                             analysis=analysis, documents=routing.documents)
    spans = sorted((c.char_start, c.char_end) for c in result.chunks)
    assert any(a_end > b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False)), \
        "the NDA's chunks overlap at their edges"
    # Before, the clause's chunk went because its first 97 characters were the
    # preceding chunk's last ones.
    assert any("To return Confidential Information" in c.text for c in result.chunks)


def test_the_return_deadline_is_answered_from_its_clause(contracts):
    turn = session_ask(workspace=contracts, question=RETURN_QUESTION)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert turn.outcome == "answered"
    first = turn.answer_markdown.split("[cite:", 1)[0]
    assert "To return Confidential Information" in first and "five (5) business days" in first


@pytest.mark.parametrize("question", [
    "How long does John Coolidge have to return the Vapotherm laptop?",
    "When must Vapotherm pay John Coolidge for his consulting work?",
])
def test_near_misses_inside_the_nda_are_declined(contracts, question):
    turn = session_ask(workspace=contracts, question=question)
    assert turn.outcome == "not_answered", turn.answer_markdown
    assert turn.claim_confidence["level"] != "high"


def test_a_distribution_agreement_answer_is_unchanged(contracts):
    question = "How much notice does Tripath have to give Uniquest before it stops making a product?"
    turn = session_ask(workspace=contracts, question=question)
    assert turn.outcome == "answered"
    assert "thirty days written notice" in turn.answer_markdown


def test_the_factor_at_its_ends_and_for_short_documents(contracts):
    assert specificity([("return",)], [frozenset({"return"})] * (MIN_PASSAGES - 1)) == 1.0
    passages = [frozenset({"servic", "loan"})] * 20 + [frozenset({"foreclosur"})]
    assert specificity([("servic",)], passages) == TOPIC_WEIGHT_FLOOR
    assert specificity([("foreclosur",)], passages) == 1.0  # one passage in 21: a clause's word
    analysis, _ = question_plan(RETURN_QUESTION, workspace=contracts)
    assert analysis_specific(analysis, passages[:3]) is analysis
    assert document_passages([]) == []


def test_only_firm_documents_are_weighed(contracts):
    nda = contracts.documents.get(title__icontains="Vapotherm")
    assert len(document_passages([nda.pk])) >= MIN_PASSAGES
    type(nda).objects.filter(pk=nda.pk).update(jurisdiction="US")  # as if it were codified law
    assert document_passages([nda.pk]) == []



OUTSOURCING = CORPUS_DIR / "private" / "cuad" / (
    "FerroglobePlc_20150624_F-4A_EX-10.20_9154746_EX-10.20_Outsourcing_Agreement.txt")
# 12 CFR Part 1072 mentions "EIT" in passing, so a question's "EIT" alone would be a key term.
PART_1072 = CORPUS_DIR / "federal" / "us-cfr-12" / (
    "12cfr1072_enforcement_of_nondiscrimination_on_the_basis_of_d.txt")


def test_the_contracts_other_party_named_by_one_word_is_scope_not_a_key(db):
    workspace = corpus_workspace_of("Outsourcing", OUTSOURCING, PART_1072)
    question = "For how long after the deal ends must EIT keep Silicon Smelters' data confidential?"
    analysis, routing = question_plan(question, workspace=workspace)
    assert routing.documents and "EIT" in routing.names and "EIT" not in routing.mentioned
    assert not any(k.key == "eit" for f in analysis.facets for k in f.keys)
    assert not any(t.key == "eit" for f in analysis.facets for t in f.terms)
