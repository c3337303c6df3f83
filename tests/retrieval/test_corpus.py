"""The whole shared corpus (172 real documents, 11 MB) ingests cleanly and routes by jurisdiction."""

import re

import pytest

from ciq.services import workspace_get_or_create
from retrieval.models import Chunk, Document
from retrieval.search import Budget, chunks_retrieve
from retrieval.services import documents_ingest
from tests.conftest import CORPUS_DIR

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
