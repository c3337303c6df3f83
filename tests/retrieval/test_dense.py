"""In-database vectors and exact cosine search on the ingested samples.

The index mechanics (scoping, filters, storage, invalidation, failures) run with
``HashingEmbedder``, a deterministic bag-of-stems embedder, so they need neither the
optional extra nor a network; ``test_embedders.py`` runs the real MiniLM.
"""

import zlib
from io import StringIO

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from ciq.text import content_terms
from retrieval.dense import DenseIndex, DimensionMismatch, cosine_top_k, vector_matrix
from retrieval.embedders import EmbeddingError, normalise
from retrieval.models import Chunk, ChunkVector, Document, Lane
from retrieval.search import Budget, chunks_retrieve
from retrieval.services import document_delete, document_ingest, workspace_embed
from tests.conftest import SAMPLES_DIR

pytestmark = pytest.mark.django_db

DOCKS = SAMPLES_DIR / "municipal" / "us-or-rivergrove" / "ordinances" / "2017-Ord-88-2017-Docks.md"
DOCK_QUESTION = "standards for the construction of a dock in the water quality resource area"


class HashingEmbedder:
    """Porter stems hashed into ``dims`` buckets, log-scaled counts, unit rows."""

    def __init__(self, name: str = "hashing", dims: int = 256) -> None:
        self.name, self.dims = name, dims
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        matrix = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            for term in content_terms(text):
                matrix[row, zlib.crc32(term.encode()) % self.dims] += 1.0
        return normalise(np.log1p(matrix))


class FailingEmbedder(HashingEmbedder):
    def embed(self, texts):
        raise EmbeddingError("openai:text-embedding-3-large: embedding 3 texts failed "
                             "(APIConnectionError: Connection error.).")


@pytest.fixture
def embedder(demo_workspace):
    embedder = HashingEmbedder()
    workspace_embed(workspace=demo_workspace, embedder=embedder)
    return embedder


def test_every_ready_chunk_gets_one_unit_float32_vector(demo_workspace, embedder):
    chunks = Chunk.objects.filter(document__workspace=demo_workspace).count()
    rows = ChunkVector.objects.filter(workspace=demo_workspace, model="hashing")
    assert rows.count() == chunks
    row = rows.first()
    vector = np.frombuffer(bytes(row.vector), dtype="<f4")
    assert row.dims == vector.size == 256
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    again = workspace_embed(workspace=demo_workspace, embedder=embedder)
    assert (again.embedded, again.vectors, again.chunks) == (0, chunks, chunks)


def test_a_dock_question_finds_the_docks_ordinance_by_cosine(demo_workspace, embedder):
    hits = DenseIndex(embedder).search(DOCK_QUESTION, workspace_id=demo_workspace.pk, k=5)
    cosines = [h.cosine for h in hits]
    assert cosines == sorted(cosines, reverse=True) and len(hits) == 5
    titles = Chunk.objects.filter(pk__in=[h.chunk_pk for h in hits]).values_list("document__title", flat=True)
    assert any("88-2017" in title for title in titles)


def test_cosine_top_k_is_exact_and_respects_the_mask():
    rng = np.random.default_rng(7)
    matrix = normalise(rng.normal(size=(1000, 32)))
    vector = normalise(rng.normal(size=(1, 32)))[0]
    mask = rng.random(1000) < 0.3
    rows, cosines = cosine_top_k(matrix, vector, 10, mask)
    allowed = np.flatnonzero(mask)
    expected = allowed[np.argsort(-(matrix[allowed] @ vector))[:10]]
    assert rows.tolist() == expected.tolist()
    assert np.allclose(cosines, matrix[rows] @ vector)


def test_the_jurisdiction_and_lane_filters_hold(demo_workspace, embedder):
    index = DenseIndex(embedder)
    hits = index.search(DOCK_QUESTION, workspace_id=demo_workspace.pk, k=20,
                        jurisdictions={"US-OR", "US"}, lane=Lane.STATE)
    chunks = Chunk.objects.in_bulk([h.chunk_pk for h in hits])
    found = {(c.jurisdiction, c.lane) for c in chunks.values()}
    assert hits and found <= {("US-OR", "state"), ("US", "state")}
    assert index.search(DOCK_QUESTION, workspace_id=demo_workspace.pk, k=5, jurisdictions=set()) == []


def test_another_workspaces_chunks_never_come_back(demo_workspace, other_workspace, embedder):
    # The same file in both workspaces: the same text, the same chunk ids, the same vectors.
    document_ingest(workspace=other_workspace, path=DOCKS)
    workspace_embed(workspace=other_workspace, embedder=embedder)
    index = DenseIndex(embedder)
    ours = index.search(DOCK_QUESTION, workspace_id=demo_workspace.pk, k=50)
    theirs = index.search(DOCK_QUESTION, workspace_id=other_workspace.pk, k=50)
    assert {c.document.workspace_id for c in Chunk.objects.filter(pk__in=[h.chunk_pk for h in ours])} == {
        demo_workspace.pk}
    assert set(Chunk.objects.filter(pk__in=[h.chunk_pk for h in theirs])
               .values_list("document__workspace_id", flat=True)) == {other_workspace.pk}


def test_retrieval_with_the_dense_index_keeps_similarity_as_the_clipped_cosine(demo_workspace, embedder):
    result = chunks_retrieve(DOCK_QUESTION, workspace=demo_workspace, budget=Budget.for_mode("answer"),
                             index=DenseIndex(embedder))
    assert any("88-2017" in c.document_title for c in result.chunks)
    hits = {h.chunk_pk: h.cosine
            for lane in (Lane.LOCAL, Lane.STATE)
            for h in DenseIndex(embedder).search(DOCK_QUESTION, workspace_id=demo_workspace.pk, k=12,
                                                 lane=lane)}
    for chunk in result.chunks:
        assert 0.0 <= chunk.similarity <= 1.0
        assert chunk.similarity == pytest.approx(max(0.0, hits[chunk.chunk_pk]), abs=1e-4)


def test_a_new_vector_or_a_deleted_document_refreshes_the_cached_matrix(demo_workspace, embedder):
    before = vector_matrix(demo_workspace.pk, "hashing")
    assert vector_matrix(demo_workspace.pk, "hashing") is before  # cached
    docks = Document.objects.get(workspace=demo_workspace, title__contains="88-2017")
    gone = set(docks.chunks.values_list("pk", flat=True))
    document_delete(document=docks)
    after = vector_matrix(demo_workspace.pk, "hashing")
    assert len(after.chunk_pks) == len(before.chunk_pks) - len(gone)
    hits = DenseIndex(embedder).search(DOCK_QUESTION, workspace_id=demo_workspace.pk, k=50)
    assert not gone & {h.chunk_pk for h in hits}


def test_vectors_of_another_size_are_refused_with_a_clear_error(demo_workspace, embedder):
    other = HashingEmbedder(name="hashing", dims=128)
    with pytest.raises(DimensionMismatch, match=r"128-dimensional .* have 256: re-embed"):
        DenseIndex(other).search("dock", workspace_id=demo_workspace.pk, k=3)


def test_no_embedder_is_a_configuration_error(settings):
    settings.CIQ_EMBEDDER = "none"
    with pytest.raises(ImproperlyConfigured, match="CIQ_EMBEDDER=minilm"):
        DenseIndex()


def test_ingest_embeds_the_chunks_in_the_documents_transaction(other_workspace, monkeypatch):
    embedder = HashingEmbedder()
    monkeypatch.setattr("retrieval.services.embedder_get", lambda: embedder)
    result = document_ingest(workspace=other_workspace, path=DOCKS)
    assert result.status == "created" and result.warning == ""
    vectors = ChunkVector.objects.filter(chunk__document=result.document, model="hashing")
    assert vectors.count() == result.chunks > 1
    assert embedder.calls == 1  # one call; the embedder batches by EMBED_BATCH_SIZE


def test_an_embedding_failure_keeps_the_document_and_the_embed_command_fills_the_gap(
    other_workspace, monkeypatch, capsys
):
    monkeypatch.setattr("retrieval.services.embedder_get", lambda: FailingEmbedder())
    result = document_ingest(workspace=other_workspace, path=DOCKS)
    assert result.status == "created" and result.chunks > 1
    assert "stored without vectors" in result.warning and "APIConnectionError" in result.warning
    assert "manage.py embed --workspace 'Other firm'" in result.warning
    assert not ChunkVector.objects.filter(workspace=other_workspace).exists()

    monkeypatch.setattr("retrieval.services.embedder_require", lambda: HashingEmbedder())
    call_command("embed", "--workspace", "Other firm")
    assert f"embedded {result.chunks} chunks" in capsys.readouterr().out
    assert ChunkVector.objects.filter(workspace=other_workspace).count() == result.chunks


def test_ingest_without_an_embedder_writes_no_vectors(other_workspace, settings):
    settings.CIQ_EMBEDDER = "none"
    document_ingest(workspace=other_workspace, path=DOCKS)
    assert not ChunkVector.objects.exists()


def test_evaluate_retrieval_compares_retrievers_on_the_same_data(demo_workspace, monkeypatch, tmp_path):
    import json

    embedder = HashingEmbedder()
    for where in ("retrieval.evaluation", "retrieval.services", "retrieval.dense"):
        monkeypatch.setattr(f"{where}.embedder_require", lambda: embedder)
    data = tmp_path / "dev.jsonl"
    data.write_text(json.dumps({
        "id": "t-1", "question": DOCK_QUESTION, "source": "samples", "jurisdictions": ["US-OR-Rivergrove"],
        "doc_path": "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md",
        "gold_quote": "AN ORDINANCE THAT AMENDS ORDINANCE NO. 70-2001 TO ALLOW DOCKS",
    }) + "\n")
    reports = {}
    for retriever in ("lexical", "dense", "hybrid"):
        out = StringIO()
        call_command("evaluate", "retrieval", "--data", str(data), "--corpus", str(SAMPLES_DIR),
                     "--workspace", "Demo", "--retriever", retriever, "--json", stdout=out)
        reports[retriever] = json.loads(out.getvalue())
    assert "embedding" not in reports["lexical"]["ingest"]
    assert reports["dense"]["ingest"]["embedding"]["model"] == "hashing"
    assert reports["hybrid"]["ingest"]["embedding"]["embedded"] == 0  # embedded once, for dense
    for retriever, report in reports.items():
        assert report["retriever"] == retriever
        assert report["groups"]["overall"]["all"]["doc_recall@10"] == 1.0, retriever


def test_a_dense_index_without_an_embedder_fails_the_system_check(settings):
    from django.core.management.base import SystemCheckError

    settings.CIQ_INDEX, settings.CIQ_EMBEDDER = "hybrid", "none"
    with pytest.raises(SystemCheckError, match="CIQ_INDEX=hybrid needs an embedder"):
        call_command("check")
