"""Embedders: OpenAI through its real SDK with the HTTP layer replaced by
``httpx.MockTransport`` (realistic payloads of ``POST /v1/embeddings``), and the local
MiniLM for real where the optional extra is installed (``make test`` installs it; with
``CI`` set a missing extra fails instead of skipping)."""

import json

import httpx
import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured

from retrieval.embedders import EmbeddingError, OpenAIEmbedder, embedder_get
from retrieval.hybrid import HybridIndex
from retrieval.models import ChunkVector
from retrieval.search import Budget, chunks_retrieve
from retrieval.services import documents_ingest
from tests.conftest import SAMPLES_DIR, minilm

RATE_LIMITED = {
    "error": {
        "message": "Rate limit reached for text-embedding-3-large in organization org-4Qb2 on "
                   "tokens per min (TPM): Limit 1000000, Used 999120, Requested 1420. Please "
                   "try again in 32ms. Visit https://platform.openai.com/account/rate-limits "
                   "to learn more.",
        "type": "tokens", "param": None, "code": "rate_limit_exceeded",
    }
}


def embeddings_payload(texts: list[str], dims: int = 3072) -> dict:
    rng = np.random.default_rng(len(texts))
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": i,
                  "embedding": (rng.normal(size=dims) * 0.02).round(8).tolist()}
                 for i in range(len(texts))],
        "model": "text-embedding-3-large",
        "usage": {"prompt_tokens": 9 * len(texts), "total_tokens": 9 * len(texts)},
    }


class Replay:
    """An ``httpx.MockTransport`` handler answering from a script, recording requests."""

    def __init__(self, *responses):
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status, headers, body = self.responses.pop(0)
        if callable(body):
            body = body(json.loads(request.content))
        return httpx.Response(status, headers={"content-type": "application/json", **headers},
                              json=body)


def ok(dims: int = 3072):
    return 200, {"openai-model": "text-embedding-3-large", "x-request-id": "req_7f3c"}, (
        lambda sent: embeddings_payload(sent["input"], dims))


@pytest.fixture
def openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-ciq")


def openai_embedder(replay: Replay) -> OpenAIEmbedder:
    return OpenAIEmbedder("text-embedding-3-large",
                          http_client=httpx.Client(transport=httpx.MockTransport(replay)))


def test_openai_embeds_in_batches_with_the_key_from_the_environment(openai_key, settings):
    settings.EMBED_BATCH_SIZE = 2
    replay = Replay(ok(), ok(), ok())
    texts = ["Docks shall not exceed 8 feet in width.", "Park hours are dawn to dusk.",
             "A debt collector may not call before 8 a.m.", "Fees are set by resolution.",
             "The permit expires after one year."]
    vectors = openai_embedder(replay).embed(texts)
    assert vectors.shape == (5, 3072) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sent = [json.loads(r.content) for r in replay.requests]
    assert [s["input"] for s in sent] == [texts[0:2], texts[2:4], texts[4:5]]
    assert {s["model"] for s in sent} == {"text-embedding-3-large"}
    assert all(r.url.path == "/v1/embeddings" for r in replay.requests)
    assert replay.requests[0].headers["authorization"] == "Bearer sk-test-ciq"


def test_a_rate_limit_is_retried_by_the_sdk_and_then_succeeds(openai_key):
    replay = Replay((429, {"retry-after-ms": "32", "x-ratelimit-reset-tokens": "32ms"}, RATE_LIMITED),
                    ok())
    vectors = openai_embedder(replay).embed(["What permits does a dock need?"])
    assert vectors.shape == (1, 3072)
    assert len(replay.requests) == 2
    assert replay.requests[1].headers["x-stainless-retry-count"] == "1"


def test_a_service_that_stays_down_is_an_error_naming_the_embedder(openai_key, settings):
    settings.EMBED_MAX_RETRIES = 1
    down = (503, {"retry-after-ms": "1"}, {"error": {"message": "The server is overloaded.",
                                                     "type": "server_error", "param": None,
                                                     "code": None}})
    replay = Replay(down, down)
    with pytest.raises(EmbeddingError, match=r"openai:text-embedding-3-large: embedding 1 texts "
                                             r"failed \(InternalServerError: .*overloaded"):
        openai_embedder(replay).embed(["dock"])
    assert len(replay.requests) == 2


def test_vectors_of_the_wrong_size_are_refused(openai_key):
    with pytest.raises(EmbeddingError, match="returned 1536-dimensional vectors, expected 3072"):
        openai_embedder(Replay(ok(dims=1536))).embed(["dock"])


def test_openai_without_a_key_is_a_configuration_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ImproperlyConfigured, match="set OPENAI_API_KEY"):
        OpenAIEmbedder("text-embedding-3-large")


def test_an_unknown_embedder_name_is_a_configuration_error(settings):
    settings.CIQ_EMBEDDER = "word2vec"
    with pytest.raises(ImproperlyConfigured, match=r"CIQ_EMBEDDER='word2vec'"):
        embedder_get()


MUNICIPAL = SAMPLES_DIR / "municipal" / "us-or-rivergrove"
SMALL_SAMPLES = [
    MUNICIPAL / "ordinances" / "2017-Ord-88-2017-Docks.md",
    MUNICIPAL / "ordinances" / "2011-Ord-80-2011-Park-Hours.md",
    MUNICIPAL / "resolutions" / "2024-Res-300-Fee-Schedule-Modification.md",
    SAMPLES_DIR / "federal" / "us-cfr-12"
    / "12cfr1009_disclosure_requirements_for_depository_institution.txt",
]


@minilm
def test_minilm_embeds_real_text_into_unit_384_vectors_that_match_a_paraphrase(settings):
    settings.CIQ_EMBEDDER = "minilm"
    embedder = embedder_get()
    assert (embedder.name, embedder.dims) == ("minilm", 384)
    vectors = embedder.embed([
        "Where may I moor a boat on the river bank?",
        SMALL_SAMPLES[0].read_text()[:1500],
        SMALL_SAMPLES[3].read_text()[:1500],
    ])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.1


@minilm
@pytest.mark.django_db
def test_ingest_with_minilm_stores_vectors_and_hybrid_search_finds_a_paraphrase(
    other_workspace, settings
):
    settings.CIQ_EMBEDDER = "minilm"
    manifest = SAMPLES_DIR / "manifest.csv"
    summary = documents_ingest(workspace=other_workspace, paths=SMALL_SAMPLES, manifest=manifest)
    assert summary.failed == 0
    assert ChunkVector.objects.filter(workspace=other_workspace, model="minilm").count() == summary.chunks
    result = chunks_retrieve("Where may I moor a boat on the river bank?", workspace=other_workspace,
                             budget=Budget.for_mode("answer"), index=HybridIndex())
    assert "88-2017" in result.chunks[0].document_title
    assert all(0.0 <= c.similarity <= 1.0 for c in result.chunks)
