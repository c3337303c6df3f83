"""The whole shared corpus (172 real documents, 11 MB) ingests cleanly, routes by
jurisdiction, and its lexical ranking in memory is FTS5's."""

import re

import pytest
from django.db import connection

from ciq.services import workspace_get_or_create
from retrieval import fts_memory
from retrieval.evaluation import load_jsonl
from retrieval.index import lexical_index
from retrieval.jurisdiction import statewide_jurisdictions
from retrieval.models import Chunk, Document, Lane
from retrieval.search import Budget, chunks_retrieve
from retrieval.services import documents_ingest
from tests.conftest import CORPUS_DIR, SHARED_DIR

# The shared corpus sits beside the repository for developers and CI; a clone on its own
# still runs every other test on the bundled samples.
from tests.retrieval.fts_support import fts_rows

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not CORPUS_DIR.is_dir(), reason=f"no shared corpus at {CORPUS_DIR}"),
]

QUESTIONS = {
    "US": "What does Regulation E provide regarding receipts at electronic terminals?",
    "US-OR": "Under Oregon law, what is provided regarding unlawful factoring of payment card transactions?",
    "US-MO-Ray": "What do the Ray County zoning regulations provide regarding floodplain violations?",
    "US-OR-Rivergrove": "What does Rivergrove law provide regarding posted or published notice?",
    "private": "Does the agreement allow the Receiving Party to share Confidential Information"
               " with employees?",
}


@pytest.fixture
def corpus_workspace(db):
    workspace = workspace_get_or_create(name="Corpus")
    summary = documents_ingest(
        workspace=workspace, paths=[CORPUS_DIR], manifest=CORPUS_DIR / "manifest.csv"
    )
    assert (summary.documents, summary.failed) == (172, 0), summary.failures
    return workspace


def test_every_corpus_document_is_ready_with_chunks(corpus_workspace):
    documents = Document.objects.filter(workspace=corpus_workspace)
    assert documents.filter(status=Document.Status.READY).count() == 172
    assert not documents.filter(chunks__isnull=True).exists()
    chunk_ids = Chunk.objects.filter(document__workspace=corpus_workspace).values_list(
        "chunk_id", flat=True
    )
    assert all(re.fullmatch(r"[0-9a-f]{12}", cid) for cid in chunk_ids)
    assert fts_rows() == Chunk.objects.count()


def test_each_jurisdiction_routes_to_its_own_documents_and_those_above(corpus_workspace):
    for jurisdiction, question in QUESTIONS.items():
        result = chunks_retrieve(
            question, workspace=corpus_workspace, jurisdictions=[jurisdiction],
            budget=Budget.for_mode("answer"),
        )
        allowed = {jurisdiction, "US"} | ({"US-OR"} if jurisdiction.startswith("US-OR") else set())
        allowed |= {"US-MO"} if jurisdiction == "US-MO-Ray" else set()
        assert result.chunks, jurisdiction
        assert {c.jurisdiction for c in result.chunks} <= allowed, jurisdiction
        assert result.chunks[0].jurisdiction == jurisdiction, jurisdiction


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the SQLite index's two rankings")
def test_the_dev_questions_get_the_same_top_40_from_fts5_and_from_memory(corpus_workspace, monkeypatch):
    # retrieval.fts_memory computes FTS5's bm25() in numpy (issue 12): every question of
    # retrieval_dev.jsonl, unfiltered and in each lane with its jurisdictions, gets the
    # same chunks, order and scores as from FTS5's own ranking.
    items = load_jsonl(SHARED_DIR / "bench" / "retrieval_dev.jsonl")
    index = lexical_index()
    scopes = [lambda item: {},
              lambda item: {"lane": Lane.LOCAL, "jurisdictions": set(item["jurisdictions"])},
              lambda item: {"lane": Lane.STATE,
                            "jurisdictions": statewide_jurisdictions(set(item["jurisdictions"]))}]

    def searched():
        return [index.search(item["question"], workspace_id=corpus_workspace.pk, k=40, **scope(item))
                for item in items for scope in scopes]

    with_memory = searched()
    monkeypatch.setattr(fts_memory, "ranked", lambda *args: None)
    monkeypatch.setattr(fts_memory, "document_frequencies", lambda *args: None)
    assert searched() == with_memory
    assert len(items) == 150 and sum(bool(hits) for hits in with_memory) > 300
