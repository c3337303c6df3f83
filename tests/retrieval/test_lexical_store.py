"""The lexical store (``retrieval.fts``) gives the same lexemes, term statistics and BM25
scores on either database (issue 12: PostgreSQL as a first-class database).

The reference is SQLite's FTS5 itself: an in-memory FTS5 table with the SQLite index's
tokenizer, filled with the workspace's chunks. On SQLite the suite compares the real
per-workspace table with it; on PostgreSQL (``make test-postgres``), the tsvector table.
"""

import sqlite3

import pytest
from django.db import connection

from ciq.models import Workspace
from ciq.text import text_folded
from retrieval.fts import (
    TOKENIZER,
    fts_document_frequencies,
    fts_documents_with_phrases,
    fts_rebuild,
)
from retrieval.index import COLUMN_WEIGHTS, index_get, lexical_index, match_expression, query_tokens
from retrieval.models import Chunk, Document
from retrieval.services import document_delete, documents_ingest

pytestmark = pytest.mark.django_db

QUESTIONS = [
    "What permits are needed to build or replace a dock in Rivergrove?",
    "How does a state apply for an exemption from the Fair Debt Collection Practices Act?",
    "tree removal permit penalties",
]


def fts5_reference(workspace: Workspace) -> sqlite3.Connection:
    """An in-memory FTS5 table (rowid = chunk pk) of the workspace's chunks."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(text, heading, title, tokenize = '{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row')")
    conn.executemany("INSERT INTO f (rowid, text, heading, title) VALUES (?, ?, ?, ?)",
                     [(pk, *map(text_folded, columns)) for pk, *columns in
                      Chunk.objects.filter(document__workspace=workspace)
                      .values_list("pk", "text", "heading", "document__title")])
    return conn


def test_the_index_of_the_database_in_use_is_picked(settings):
    settings.CIQ_INDEX = "lexical"
    assert type(index_get()) is type(lexical_index())
    assert type(lexical_index()).__name__ == {"sqlite": "SQLiteFTSIndex",
                                              "postgresql": "PostgresFTSIndex"}[connection.vendor]


def test_another_database_engine_is_refused(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured
    from django.db import connections

    monkeypatch.setattr(connections["default"], "vendor", "mysql")
    for name in ("lexical", "dense"):
        with pytest.raises(ImproperlyConfigured, match="SQLite or PostgreSQL"):
            index_get(name)


def test_term_statistics_are_fts5s_own(demo_workspace):
    reference = fts5_reference(demo_workspace)
    n, df = fts_document_frequencies(demo_workspace.pk)
    assert n == Chunk.objects.filter(document__workspace=demo_workspace).count()
    assert df == dict(reference.execute("SELECT term, doc FROM v"))


def test_bm25_scores_are_fts5s_own(demo_workspace):
    reference = fts5_reference(demo_workspace)
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    for question in QUESTIONS:
        expected = reference.execute(
            f"SELECT rowid, -bm25(f, {weights}) AS s FROM f WHERE f MATCH ? ORDER BY s DESC LIMIT 10",
            [match_expression(query_tokens(question))]).fetchall()
        hits = lexical_index().search(question, workspace_id=demo_workspace.pk, k=10)
        assert [h.bm25 for h in hits] == pytest.approx([s for _, s in expected], rel=1e-5)
        # The same chunks, whatever order ties come in.
        assert {h.chunk_pk for h in hits} == {pk for pk, _ in expected}


def test_counts_follow_ingest_retitle_and_delete(demo_workspace, tmp_path):
    memo = tmp_path / "memo.md"
    memo.write_text("# Quillfeather memo\n\nThe quillfeather dock settles. Logan's Roadhouse pays.\n")
    documents_ingest(workspace=demo_workspace, paths=[memo])
    document = Document.objects.get(workspace=demo_workspace, source_path__endswith="memo.md")
    document.title = "Zyzzyva pier rules"
    document.save()
    after_retitle = fts_document_frequencies(demo_workspace.pk)
    assert after_retitle[1]["zyzzyva"] == after_retitle[1]["quillfeath"]
    document_delete(document=document)
    after_delete = fts_document_frequencies(demo_workspace.pk)
    assert "zyzzyva" not in after_delete[1] and "quillfeath" not in after_delete[1]
    # What the write path keeps equals what a rebuild from the chunks gives.
    fts_rebuild(demo_workspace.pk)
    assert fts_document_frequencies(demo_workspace.pk) == after_delete


def test_a_rebuild_in_batches_indexes_what_ingest_indexed(demo_workspace, monkeypatch):
    import retrieval.fts
    import retrieval.fts_postgres

    before = fts_document_frequencies(demo_workspace.pk)
    monkeypatch.setattr(retrieval.fts, "_REBUILD_BATCH", 100)  # the demo's 764 chunks: 8 batches
    added: list[int] = []  # rows each write is handed, on either database
    for module in (retrieval.fts, retrieval.fts_postgres):
        def spy(workspace_id, rows, add=module.fts_add):
            added.append(len(rows))
            return add(workspace_id, rows)
        monkeypatch.setattr(module, "fts_add", spy)
    assert fts_rebuild(demo_workspace.pk) == Chunk.objects.filter(document__workspace=demo_workspace).count()
    assert len(added) == 8 and max(added) == 100
    assert fts_document_frequencies(demo_workspace.pk) == before


def test_a_word_typeset_with_a_ligature_is_found_by_its_letters(demo_workspace, tmp_path):
    # PDFs and the text copied from them write "conﬁdential" with the one-letter "ﬁ".
    memo = tmp_path / "nda.txt"
    memo.write_text("7. The obligation of con\ufb01dentiality shall extend to three years.\n",
                    encoding="utf-8")
    documents_ingest(workspace=demo_workspace, paths=[memo])
    document = Document.objects.get(workspace=demo_workspace, source_path__endswith="nda.txt")
    assert "\ufb01" in document.chunks.get().text  # the chunk keeps the document's characters
    for rebuilt in (False, True):
        if rebuilt:
            fts_rebuild(demo_workspace.pk)
        hits = lexical_index().search("obligation of confidentiality", workspace_id=demo_workspace.pk, k=3)
        assert Chunk.objects.get(pk=hits[0].chunk_pk).document_id == document.pk


def test_a_phrase_finds_its_documents_and_user_text_is_never_query_syntax(demo_workspace, tmp_path):
    memo = tmp_path / "memo.md"
    memo.write_text("# Lease\n\nLogan's Roadhouse pays rent to O'Brien & Sons.\n")
    documents_ingest(workspace=demo_workspace, paths=[memo])
    document = Document.objects.get(workspace=demo_workspace, source_path__endswith="memo.md")
    assert fts_documents_with_phrases(demo_workspace.pk, [["logan", "s", "roadhouse"]], 5) == [
        (document.pk, document.jurisdiction)]
    assert fts_documents_with_phrases(demo_workspace.pk, [["roadhouse", "logan"]], 5) == []
    for hostile in ["'dock' | !", "dock\\' & :*", "o'brien <-> sons", '"NEAR(dock pier)" *', "''"]:
        assert isinstance(fts_documents_with_phrases(demo_workspace.pk, [hostile.split()], 5), list)
        lexical_index().search(hostile, workspace_id=demo_workspace.pk, k=5)
    hits = lexical_index().search("O'Brien roadhouse", workspace_id=demo_workspace.pk, k=3)
    assert Chunk.objects.get(pk=hits[0].chunk_pk).document_id == document.pk


def test_filters_narrow_the_ranking_and_keep_each_score(demo_workspace):
    index = lexical_index()
    everything = index.search(QUESTIONS[0], workspace_id=demo_workspace.pk, k=10_000)
    jurisdiction = Chunk.objects.get(pk=everything[0].chunk_pk).jurisdiction
    narrowed = index.search(QUESTIONS[0], workspace_id=demo_workspace.pk, k=20,
                            jurisdictions={jurisdiction})
    assert narrowed and {Chunk.objects.get(pk=h.chunk_pk).jurisdiction for h in narrowed} == {jurisdiction}
    score = {h.chunk_pk: h.bm25 for h in everything}
    assert [h.bm25 for h in narrowed] == pytest.approx([score[h.chunk_pk] for h in narrowed], rel=1e-6)
    assert [h.bm25 for h in narrowed] == sorted((h.bm25 for h in narrowed), reverse=True)
    assert index.search(QUESTIONS[0], workspace_id=demo_workspace.pk, k=5, jurisdictions=set()) == []
    assert index.search(QUESTIONS[0], workspace_id=demo_workspace.pk, k=5, documents=set()) == []
