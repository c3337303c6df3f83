"""The PostgreSQL lexical index's impact-ordered postings (issue 12: a lexical query at
1M chunks): kept by the same writes as the tsvectors, per workspace, and giving the top
10 of ranking every match (``retrieval.fts_postgres.fts_search``); a synthesised
workspace's rows equal those of indexing its text (``retrieval.fts.fts_copy``)."""

import pytest
from django.db import connection

from ciq.services import workspace_get_or_create
from retrieval.evaluation import load_jsonl
from retrieval.fts import fts_document_frequencies, fts_rebuild
from retrieval.fts_postgres import fts_search, phrase_terms
from retrieval.index import COLUMN_WEIGHTS, query_tokens
from retrieval.manifest import DocumentMetadata
from retrieval.models import Chunk, Document, Lane
from retrieval.scale import workspace_synthesise
from retrieval.services import IngestStatus, document_delete, document_ingest, documents_ingest
from tests.conftest import CORPUS_DIR, SAMPLES_DIR, SHARED_DIR, corpus_workspace_of

pytestmark = pytest.mark.django_db
on_postgres = pytest.mark.skipif(connection.vendor != "postgresql", reason="postings are PostgreSQL's")

DOCKS = SAMPLES_DIR / "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"
QUESTION = "How far may a dock extend into the river?"


def _postings(chunk_pks) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM retrieval_lexical_posting WHERE chunk_id = ANY(%s)",
                       [list(chunk_pks)])
        return cursor.fetchone()[0]


def _lexemes(chunk_pks) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(length(tsv)), 0) FROM retrieval_lexical WHERE chunk_id = ANY(%s)",
                       [list(chunk_pks)])
        return cursor.fetchone()[0]


def _search(workspace, question, *, k=40, **filters):
    return fts_search(workspace.pk, phrase_terms(query_tokens(question)), k=k, weights=COLUMN_WEIGHTS,
                      **filters)


def _every_match_ranked(workspace, question, **filters):
    """The exact ranking: a filter on every document of the workspace reads no postings,
    and a budget no question reaches ranks every match."""
    documents = list(Document.objects.filter(workspace=workspace).values_list("pk", flat=True))
    return _search(workspace, question, documents=documents, budget=10**9, **filters)


@on_postgres
def test_ingest_writes_one_posting_per_term_of_a_chunk_and_delete_removes_them(demo_workspace):
    document = Document.objects.get(workspace=demo_workspace, source_path__endswith=DOCKS.name)
    pks = list(document.chunks.values_list("pk", flat=True))
    assert _postings(pks) == _lexemes(pks) > 0
    document_delete(document=document)
    assert _postings(pks) == 0


@on_postgres
def test_a_workspace_reads_its_own_postings_only(demo_workspace):
    before = _search(demo_workspace, QUESTION)
    other = workspace_get_or_create(name="Other firm")
    documents_ingest(workspace=other, paths=[DOCKS, DOCKS.parent])
    assert _search(demo_workspace, QUESTION) == before
    ours = set(Chunk.objects.filter(document__workspace=demo_workspace).values_list("pk", flat=True))
    assert before and {pk for pk, _ in before} <= ours


@on_postgres
def test_a_new_jurisdiction_moves_the_postings_to_its_lane(other_workspace):
    """The same bytes ingested again with a state jurisdiction: the chunks change lane,
    and so do their postings, which a lane-filtered search reads."""
    local = DocumentMetadata(title="Docks", jurisdiction="US-OR-Rivergrove", jurisdiction_level="municipal")
    document_ingest(workspace=other_workspace, path=DOCKS, metadata=local)
    assert _search(other_workspace, QUESTION, lane=Lane.LOCAL)
    assert not _search(other_workspace, QUESTION, lane=Lane.STATE)
    state = DocumentMetadata(title="Docks", jurisdiction="US-OR", jurisdiction_level="state")
    result = document_ingest(workspace=other_workspace, path=DOCKS, metadata=state)
    assert result.status == IngestStatus.UPDATED
    assert not _search(other_workspace, QUESTION, lane=Lane.LOCAL)
    assert _search(other_workspace, QUESTION, lane=Lane.STATE, jurisdictions=["US-OR"])


@on_postgres
def test_impact_candidates_give_the_top_10_of_ranking_every_match():
    """Every ``retrieval_dev.jsonl`` question, through the postings and by ranking every
    match: the same top 10, scores included, unfiltered and in each lane."""
    workspace = corpus_workspace_of("Corpus", CORPUS_DIR)
    questions = [item["question"] for item in load_jsonl(SHARED_DIR / "bench" / "retrieval_dev.jsonl")]
    differ = [(q, lane) for q in questions for lane in (None, Lane.LOCAL, Lane.STATE)
              if _search(workspace, q, lane=lane)[:10] != _every_match_ranked(workspace, q, lane=lane)[:10]]
    assert not differ, f"{len(differ)} of {3 * len(questions)} differ, first: {differ[:3]}"


def test_a_synthesised_workspace_holds_the_rows_of_indexing_its_text(demo_workspace):
    workspace, _ = workspace_synthesise(source=demo_workspace, name="scale:copy", chunks=300)
    copied = fts_document_frequencies(workspace.pk)
    assert copied[0] == 300
    fts_rebuild(workspace.pk)
    assert fts_document_frequencies(workspace.pk) == copied
