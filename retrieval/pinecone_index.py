"""Pinecone as the vector index at scale (DESIGN.md §5), through the official ``pinecone``
SDK (its HTTP data plane: ``/vectors/upsert``, ``/query``, ``/vectors/delete``).

One namespace per workspace (``ws-<pk>``), so one firm's query can never reach another's
vectors. A vector's id is the chunk's 12-hex ``chunk_id``; its metadata carries the
chunk's ``jurisdiction`` and ``lane`` (for the query filter) and its ``document`` pk.
The vectors themselves are the in-database ones (``ChunkVector``, written at ingest):
Pinecone is a copy that ``manage.py embed --workspace NAME`` can always rebuild, so a
failed push loses nothing. The Pinecone index must use the cosine metric and the
embedder's dimension (3072 for ``text-embedding-3-large``, 384 for ``minilm``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from retrieval.embedders import Embedder, embedder_require, query_vector
from retrieval.fts import fts_idf
from retrieval.index import Hit
from retrieval.index_writes import IndexWrites
from retrieval.models import Chunk, ChunkVector, Document

logger = logging.getLogger(__name__)

# Pinecone data-plane limits (docs.pinecone.io, "Limits"): 2 MB per upsert request, 1000
# vectors per upsert or delete request. A float32 sent as JSON takes up to ~12 bytes.
_MAX_REQUEST_BYTES = 2_000_000
_MAX_IDS_PER_REQUEST = 1000
_JSON_BYTES_PER_FLOAT = 12
_METADATA_BYTES = 200


class PineconeSyncError(RuntimeError):
    """Pinecone refused or failed a request; the message names the operation and cause."""


def namespace_for(workspace_id: int) -> str:
    """The Pinecone namespace of a workspace."""
    return f"ws-{workspace_id}"


@cache
def _index(api_key: str, host: str, name: str):
    from pinecone import Pinecone

    client = Pinecone(api_key=api_key)
    return client.Index(host=host) if host else client.Index(name=name)


def pinecone_index():
    """The SDK's data-plane ``Index`` for ``PINECONE_HOST`` (or ``PINECONE_INDEX`` by name),
    one per process. Raises ``ImproperlyConfigured`` without ``PINECONE_API_KEY`` or an
    index."""
    if not settings.PINECONE_API_KEY:
        raise ImproperlyConfigured("CIQ_INDEX=pinecone: set PINECONE_API_KEY in the environment.")
    if not (settings.PINECONE_HOST or settings.PINECONE_INDEX):
        raise ImproperlyConfigured("CIQ_INDEX=pinecone: set PINECONE_HOST (or PINECONE_INDEX).")
    return _index(settings.PINECONE_API_KEY, settings.PINECONE_HOST, settings.PINECONE_INDEX)


def upsert_batch_size(dims: int) -> int:
    """Vectors per upsert request: ``PINECONE_BATCH_SIZE``, lowered so a request of
    ``dims``-dimensional vectors stays under Pinecone's 2 MB and 1000-vector limits."""
    fits = _MAX_REQUEST_BYTES // (dims * _JSON_BYTES_PER_FLOAT + _METADATA_BYTES)
    return max(1, min(settings.PINECONE_BATCH_SIZE, _MAX_IDS_PER_REQUEST, fits))


def query_filter(jurisdictions: Iterable[str] | None, lane: str | None,
                 documents: Iterable[int] | None = None) -> dict | None:
    """Pinecone metadata filter: jurisdiction any of ``jurisdictions`` (``$in``), the lane
    (``$eq``) and the document any of ``documents`` (``$in``); None when nothing is
    filtered."""
    clauses = []
    if documents is not None:
        clauses.append({"document": {"$in": sorted(documents)}})
    if jurisdictions is not None:
        clauses.append({"jurisdiction": {"$in": sorted(jurisdictions)}})
    if lane is not None:
        clauses.append({"lane": {"$eq": str(lane)}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _sdk_errors() -> tuple[type[Exception], ...]:
    from pinecone.errors.exceptions import PineconeError

    return (PineconeError,)


def vectors_push(*, workspace_id: int, document_ids: Sequence[int] | None = None, model: str) -> int:
    """Upsert the ``model`` vectors of the workspace's chunks (only of ``document_ids``
    when given) into its namespace, in batches (:func:`upsert_batch_size`). Upserts
    overwrite, so pushing again is harmless. Returns the vectors sent.

    Raises :class:`PineconeSyncError` when a batch fails after the SDK's retries."""
    rows = ChunkVector.objects.filter(workspace_id=workspace_id, model=model)
    if document_ids is not None:
        rows = rows.filter(chunk__document_id__in=list(document_ids))
    rows = list(rows.values_list("chunk__chunk_id", "chunk__jurisdiction", "chunk__lane",
                                 "chunk__document_id", "dims", "vector"))
    if not rows:
        return 0
    vectors = [
        {"id": chunk_id, "values": np.frombuffer(bytes(blob), dtype="<f4").tolist(),
         "metadata": {"jurisdiction": jurisdiction, "lane": lane, "document": document_id}}
        for chunk_id, jurisdiction, lane, document_id, _dims, blob in rows
    ]
    try:
        response = pinecone_index().upsert(
            vectors=vectors, namespace=namespace_for(workspace_id),
            batch_size=upsert_batch_size(rows[0][4]), show_progress=False, max_concurrency=4,
        )
    except _sdk_errors() as exc:
        raise PineconeSyncError(f"Pinecone upsert of {len(vectors)} vectors failed: {exc}") from exc
    if response.has_errors:
        raise PineconeSyncError(
            f"Pinecone upsert: {response.failed_item_count} of {len(vectors)} vectors failed "
            f"({response.errors[0]})."
        )
    return len(vectors)


def vectors_remove(*, workspace_id: int, chunk_ids: Sequence[str]) -> int:
    """Delete the vectors of ``chunk_ids`` from the workspace's namespace (ids it does not
    hold are ignored), at most 1000 per request; returns the ids sent. Raises
    :class:`PineconeSyncError`."""
    index = pinecone_index()
    ids = sorted(set(chunk_ids))
    for start in range(0, len(ids), _MAX_IDS_PER_REQUEST):
        try:
            index.delete(ids=ids[start : start + _MAX_IDS_PER_REQUEST],
                         namespace=namespace_for(workspace_id))
        except _sdk_errors() as exc:
            raise PineconeSyncError(f"Pinecone delete of {len(ids)} vectors failed: {exc}") from exc
    return len(ids)


def _on_commit(sync) -> None:
    """Run ``sync`` (a Pinecone write) once the caller's transaction commits (at once
    outside one), a :class:`PineconeSyncError` logged with the command that repairs it:
    the database, which holds every vector, is unaffected."""

    def logged() -> None:
        try:
            sync()
        except PineconeSyncError as exc:
            logger.error("%s The vectors are kept in the database: run `manage.py embed "
                         "--workspace NAME` to push them again.", exc)

    transaction.on_commit(logged)


class PineconeIndex(IndexWrites):
    """Dense search in Pinecone: the question embedded by ``CIQ_EMBEDDER``, the
    workspace's namespace, the jurisdiction and lane filter, ``top_k`` = k. Matches are
    mapped back to the workspace's chunks by ``chunk_id`` (a vector whose chunk is gone
    is skipped). ``Hit.cosine`` is Pinecone's cosine score.

    Writes: the database's (``retrieval.index_writes.IndexWrites``), then the copy in
    the workspace's namespace once the caller's transaction commits (:func:`_on_commit`):
    a document's vectors upserted after its chunks, its chunk ids deleted with them.

    Raises ``ImproperlyConfigured`` (no embedder, key or host), :class:`PineconeSyncError`
    when the query fails after the SDK's retries, and ``EmbeddingError``.
    """

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder or embedder_require()
        self.index = pinecone_index()

    def search(self, query, *, workspace_id, k, jurisdictions=None, lane=None, documents=None,
               expansion=""):
        if k <= 0 or not query.strip() or (jurisdictions is not None and not jurisdictions):
            return []
        vector = query_vector(self.embedder, query)
        try:
            response = self.index.query(
                top_k=k, vector=vector.tolist(), namespace=namespace_for(workspace_id),
                filter=query_filter(jurisdictions, lane, documents),
            )
        except _sdk_errors() as exc:
            raise PineconeSyncError(f"Pinecone query failed: {exc}") from exc
        scores = {match.id: float(match.score) for match in response.matches}
        pks = dict(
            Chunk.objects.filter(document__workspace_id=workspace_id, chunk_id__in=list(scores))
            .values_list("chunk_id", "pk")
        )
        return [Hit(chunk_pk=pks[cid], cosine=score) for cid, score in scores.items() if cid in pks]

    def idf(self, terms, *, workspace_id):
        """The lexical index's IDF (term weights for the Writer and the similarity)."""
        return fts_idf(terms, workspace_id=workspace_id)

    def upsert(self, document, chunks, *, vectors=None, model=""):
        super().upsert(document, chunks, vectors=vectors, model=model)
        if vectors is not None:
            self.vectors_changed(document.workspace_id, documents=[document.pk], on_commit=True)

    def remove(self, document: Document) -> None:
        chunk_ids = list(document.chunks.values_list("chunk_id", flat=True))
        super().remove(document)
        if chunk_ids:
            _on_commit(lambda: vectors_remove(workspace_id=document.workspace_id, chunk_ids=chunk_ids))

    def vectors_changed(self, workspace_id, *, documents=None, on_commit=False):
        def push() -> int:
            return vectors_push(workspace_id=workspace_id, document_ids=documents, model=self.embedder.name)

        if on_commit:
            _on_commit(push)
            return 0
        return push()
