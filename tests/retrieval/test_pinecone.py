"""Pinecone through its real SDK (``pinecone`` 10.x) with the HTTP layer replaced.

The SDK's sync client is httpx-based: ``Index._http._client`` is an ``httpx.Client``
whose transport is the SDK's ``_RetryTransport`` wrapping an ``httpx.HTTPTransport``.
The tests swap that innermost ``HTTPTransport`` for an ``httpx.MockTransport``, so the
SDK's own request building, headers, JSON encoding, retries (429/5xx) and response
parsing all run; only the network is replayed, with JSON shaped like Pinecone's
data-plane API (``/vectors/upsert``, ``/query``, ``/vectors/delete``).
"""

import json
import threading

import httpx
import pytest

from retrieval.index import index_get
from retrieval.models import Chunk, ChunkVector, Document
from retrieval.pinecone_index import (
    PineconeIndex,
    PineconeSyncError,
    namespace_for,
    query_filter,
    upsert_batch_size,
)
from retrieval.services import document_delete, document_ingest, workspace_embed
from tests.retrieval.test_dense import DOCKS, HashingEmbedder

pytestmark = pytest.mark.django_db

HOST = "https://ciq-chunks-x7k2p9q.svc.aped-4627-b74a.pinecone.io"


class PineconeReplay:
    """Answers like Pinecone's data plane; records every request body by path."""

    def __init__(self):
        self.calls: list[tuple[str, dict, httpx.Headers]] = []
        self.matches: list[dict] = []
        self.fail: dict[str, list[tuple[int, dict]]] = {}
        self._lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else {}
        with self._lock:
            self.calls.append((request.url.path, body, request.headers))
            scripted = self.fail.get(request.url.path)
            if scripted:
                status, error = scripted.pop(0)
                return httpx.Response(status, json=error)
        headers = {"x-pinecone-request-lsn": "4213", "x-pinecone-max-indexed-lsn": "4213"}
        if request.url.path == "/vectors/upsert":
            return httpx.Response(200, json={"upsertedCount": len(body["vectors"])}, headers=headers)
        if request.url.path == "/query":
            return httpx.Response(200, headers=headers, json={
                "results": [], "matches": self.matches[: body["topK"]],
                "namespace": body.get("namespace", ""), "usage": {"readUnits": 6},
            })
        if request.url.path == "/vectors/delete":
            return httpx.Response(200, json={}, headers=headers)
        return httpx.Response(404, json={"code": 5, "message": "Not Found", "details": []})

    def bodies(self, path: str) -> list[dict]:
        return [body for p, body, _ in self.calls if p == path]


@pytest.fixture
def replay(monkeypatch, settings):
    from pinecone import Pinecone

    settings.CIQ_INDEX = "pinecone"
    settings.PINECONE_API_KEY = "pcsk_test_4f9a"
    settings.PINECONE_HOST = HOST
    replay = PineconeReplay()
    index = Pinecone(api_key=settings.PINECONE_API_KEY).Index(host=HOST)
    index._http._client._transport._transport = httpx.MockTransport(replay)
    monkeypatch.setattr("retrieval.pinecone_index.pinecone_index", lambda: index)
    monkeypatch.setattr("pinecone._internal.http_client._retry_sleep", lambda seconds: None)
    embedder = HashingEmbedder()
    monkeypatch.setattr("retrieval.services.embedder_get", lambda: embedder)
    monkeypatch.setattr("retrieval.pinecone_index.embedder_require", lambda: embedder)
    replay.embedder = embedder
    return replay


def test_ingest_upserts_the_vectors_into_the_workspace_namespace_after_commit(
    replay, other_workspace, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        result = document_ingest(workspace=other_workspace, path=DOCKS)
    (body,) = replay.bodies("/vectors/upsert")
    chunks = Chunk.objects.filter(document=result.document)
    assert body["namespace"] == namespace_for(other_workspace.pk) == f"ws-{other_workspace.pk}"
    assert sorted(v["id"] for v in body["vectors"]) == sorted(c.chunk_id for c in chunks)
    assert {len(v["values"]) for v in body["vectors"]} == {256}
    assert body["vectors"][0]["metadata"] == {
        "jurisdiction": "private", "lane": "local", "document": result.document.pk}
    assert replay.calls[0][2]["api-key"] == "pcsk_test_4f9a"


def test_upserts_go_in_batches_that_fit_pinecones_request_limit(replay, demo_workspace, settings):
    settings.PINECONE_BATCH_SIZE = 100
    assert upsert_batch_size(3072) == 53  # 2 MB / (3072 × 12 B + 200 B)
    assert upsert_batch_size(384) == 100
    summary = workspace_embed(workspace=demo_workspace, embedder=replay.embedder)
    bodies = replay.bodies("/vectors/upsert")
    assert summary.pushed == summary.vectors == sum(len(b["vectors"]) for b in bodies)
    assert max(len(b["vectors"]) for b in bodies) == 100 and len(bodies) == -(-summary.vectors // 100)


def test_a_query_sends_namespace_filter_and_top_k_and_maps_matches_to_chunks(
    replay, demo_workspace, other_workspace
):
    document_ingest(workspace=other_workspace, path=DOCKS)  # same chunk ids in both workspaces
    ours = list(Chunk.objects.filter(document__workspace=demo_workspace, jurisdiction="US-OR-Rivergrove")
                .order_by("pk")[:3])
    replay.matches = [{"id": c.chunk_id, "score": score, "values": []}
                      for c, score in zip(ours, (0.81, 0.74, 0.62), strict=True)]
    replay.matches.append({"id": "0123456789ab", "score": 0.6, "values": []})  # chunk gone since
    hits = index_get().search("What permits does a dock need?", workspace_id=demo_workspace.pk,
                              k=5, jurisdictions={"US-OR-Rivergrove"}, lane="local")
    (body,) = replay.bodies("/query")
    assert body["namespace"] == f"ws-{demo_workspace.pk}" and body["topK"] == 5
    assert body["filter"] == {"$and": [{"jurisdiction": {"$in": ["US-OR-Rivergrove"]}},
                                       {"lane": {"$eq": "local"}}]}
    assert len(body["vector"]) == 256
    assert [(h.chunk_pk, h.cosine) for h in hits] == [
        (ours[0].pk, 0.81), (ours[1].pk, 0.74), (ours[2].pk, 0.62)]


def test_matches_from_another_workspace_are_never_returned(replay, demo_workspace, other_workspace):
    theirs = document_ingest(workspace=other_workspace, path=DOCKS).document
    only_theirs = Chunk.objects.filter(document=theirs).first()
    Chunk.objects.filter(document__workspace=demo_workspace, chunk_id=only_theirs.chunk_id).delete()
    replay.matches = [{"id": only_theirs.chunk_id, "score": 0.9, "values": []}]
    assert PineconeIndex(replay.embedder).search("dock", workspace_id=demo_workspace.pk, k=5) == []


def test_removing_a_document_deletes_its_vectors_after_commit(
    replay, demo_workspace, django_capture_on_commit_callbacks
):
    document = Document.objects.get(workspace=demo_workspace, title__contains="88-2017")
    ids = sorted(document.chunks.values_list("chunk_id", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        document_delete(document=document)
    assert replay.bodies("/vectors/delete") == [{"namespace": f"ws-{demo_workspace.pk}", "ids": ids}]


def test_a_document_deleted_outside_the_services_leaves_pinecone_too(
    replay, demo_workspace, django_capture_on_commit_callbacks
):
    """The admin's bulk delete and a workspace's cascade go through no service: the
    index's own ``remove`` (``retrieval.signals``) deletes the vectors it keeps."""
    document = Document.objects.get(workspace=demo_workspace, title__contains="88-2017")
    ids = sorted(document.chunks.values_list("chunk_id", flat=True))
    with django_capture_on_commit_callbacks(execute=True):
        Document.objects.filter(pk=document.pk).delete()
    assert replay.bodies("/vectors/delete") == [{"namespace": f"ws-{demo_workspace.pk}", "ids": ids}]


def test_a_rate_limited_query_is_retried_by_the_sdk(replay, demo_workspace):
    replay.fail["/query"] = [(429, {"code": 8, "message": "Request failed. You've reached the max "
                                    "read units per second (2000) for index ciq-chunks.",
                                    "details": []})]
    chunk = Chunk.objects.filter(document__workspace=demo_workspace).first()
    replay.matches = [{"id": chunk.chunk_id, "score": 0.7, "values": []}]
    hits = PineconeIndex(replay.embedder).search("dock", workspace_id=demo_workspace.pk, k=3)
    assert [h.chunk_pk for h in hits] == [chunk.pk]
    assert len(replay.bodies("/query")) == 2


def test_a_failed_query_is_an_error_naming_pinecone(replay, demo_workspace):
    replay.fail["/query"] = [(400, {"code": 3, "message": "Vector dimension 256 does not match the "
                                    "dimension of the index 3072", "details": []})]
    with pytest.raises(PineconeSyncError, match="Pinecone query failed: .*dimension of the index 3072"):
        PineconeIndex(replay.embedder).search("dock", workspace_id=demo_workspace.pk, k=3)


def test_a_failed_push_keeps_the_document_and_its_vectors(
    replay, other_workspace, django_capture_on_commit_callbacks, caplog
):
    replay.fail["/vectors/upsert"] = [(500, {"code": 13, "message": "Internal error", "details": []})] * 4
    with django_capture_on_commit_callbacks(execute=True):
        result = document_ingest(workspace=other_workspace, path=DOCKS)
    assert result.status == "created"
    assert ChunkVector.objects.filter(chunk__document=result.document).count() == result.chunks
    assert "run `manage.py embed --workspace NAME` to push them again" in caplog.text


def test_the_filter_is_omitted_or_single_when_little_is_filtered():
    assert query_filter(None, None) is None
    assert query_filter(["US", "US-OR"], None) == {"jurisdiction": {"$in": ["US", "US-OR"]}}
    assert query_filter(None, "state") == {"lane": {"$eq": "state"}}
