"""No number a firm sees depends on another firm's documents (issue 11 "cross-firm word
oracle", issue 12 "term statistics per workspace").

The attack: firm B asks a question holding a word found only in firm A's privileged
memo, and reads the similarity and retrieval confidence of its answer; with statistics
shared by every workspace, both moved when A uploaded or deleted the memo.
"""

import pytest

from retrieval.confidence import retrieval_confidence
from retrieval.index import lexical_index, query_terms
from retrieval.search import Budget, chunks_retrieve
from retrieval.services import document_delete, documents_ingest

pytestmark = pytest.mark.django_db

QUESTION = "What permit does a dock need, and what does the Quillfeather settlement say about docks?"
MEMO = """# Privileged: Project Quillfeather

Quillfeather settlement terms. The dock permit dispute settles for $40,000. The dock
owner waives every claim about the dock, the permit and the pilings. Quillfeather is
our code name; never disclose it. Dock, dock, dock permit.
"""


def what_firm_b_sees(workspace) -> dict:
    """Every number of a retrieval that reaches a user: scores per chunk, the term
    weights of the Writer and the Judge, and the retrieval confidence."""
    result = chunks_retrieve(QUESTION, workspace=workspace, budget=Budget.for_mode("answer"))
    return {
        "chunks": [(c.chunk_id, round(c.bm25, 9), round(c.similarity, 9), round(c.score, 9))
                   for c in result.chunks],
        "weights": {t: round(w, 9) for t, w in sorted(result.term_weights.items())},
        "idf": lexical_index().idf(query_terms(QUESTION), workspace_id=workspace.pk),
        "confidence": retrieval_confidence(result.chunks, []).as_dict(),
    }


def test_another_firms_upload_and_delete_change_no_number_this_firm_sees(
        demo_workspace, other_workspace, tmp_path):
    before = what_firm_b_sees(demo_workspace)
    memo = tmp_path / "quillfeather-memo.md"
    memo.write_text(MEMO * 40)
    summary = documents_ingest(workspace=other_workspace, paths=[memo])
    assert summary.created == 1
    assert what_firm_b_sees(demo_workspace) == before

    document_delete(document=other_workspace.documents.get())
    assert what_firm_b_sees(demo_workspace) == before


def test_each_firm_has_its_own_term_statistics(demo_workspace, other_workspace, tmp_path):
    memo = tmp_path / "quillfeather-memo.md"
    memo.write_text(MEMO)
    documents_ingest(workspace=other_workspace, paths=[memo])
    index = lexical_index()
    assert index.search("quillfeather", workspace_id=other_workspace.pk, k=5)
    assert index.search("quillfeather", workspace_id=demo_workspace.pk, k=5) == []
    # The word is unknown to firm B, exactly as if firm A did not exist.
    idf = index.idf(["quillfeath", "zzzunseen"], workspace_id=demo_workspace.pk)
    assert idf["quillfeath"] == idf["zzzunseen"]
