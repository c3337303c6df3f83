"""What every chunk index does when chunks come and go (issue 12: "``ChunkIndex`` owns
its writes"): :class:`IndexWrites`, the writes of the indexes that read the database, and
:func:`vectors_store`, the in-database vectors every dense index reads.

Every index keeps the workspace's lexical rows (``retrieval.fts``: the lexical index's
postings and every index's term weights) and the chunks' vectors in the database
(``ChunkVector``, written whenever an embedder is configured, so a workspace can move
to a dense index without re-embedding). An index that keeps a copy elsewhere
(``retrieval.pinecone_index.PineconeIndex``) adds its own writes to these. Ingest
(``retrieval.services``) calls the configured index's methods and never asks which
index it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from retrieval.fts import fts_add, fts_remove
from retrieval.models import Chunk, ChunkVector, Document


def vectors_store(*, chunks: Sequence[Chunk], vectors: np.ndarray, model: str) -> None:
    """Write ``vectors`` (``len(chunks) × d`` float32, unit rows) as the ``model`` vectors
    of ``chunks`` (each with its ``document`` loaded), replacing any they had. Call inside
    the transaction that writes the chunks. Raises ``ValueError`` on a count mismatch."""
    if len(chunks) != len(vectors):
        raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors.")
    if not chunks:
        return
    vectors = np.ascontiguousarray(vectors, dtype="<f4")
    ChunkVector.objects.filter(chunk__in=[c.pk for c in chunks], model=model).delete()
    ChunkVector.objects.bulk_create(
        [
            ChunkVector(chunk_id=chunk.pk, workspace_id=chunk.document.workspace_id, model=model,
                        dims=vectors.shape[1], vector=row.tobytes())
            for chunk, row in zip(chunks, vectors, strict=True)
        ],
        batch_size=500,
    )


class IndexWrites:
    """The writes of an index that reads the database: the lexical rows and the vectors,
    inside the caller's transaction (a failed transaction leaves no half-indexed
    document)."""

    def upsert(self, document: Document, chunks: Sequence[Chunk], *, vectors: np.ndarray | None = None,
               model: str = "") -> None:
        """Index the new ``chunks`` (saved rows) of ``document``: their lexical rows and,
        with ``vectors`` (one unit row per chunk, of the embedder named ``model``), their
        vectors."""
        fts_add(document.workspace_id, ((c.pk, c.text, c.heading, document.title) for c in chunks))
        if vectors is not None:
            vectors_store(chunks=chunks, vectors=vectors, model=model)

    def remove(self, document: Document) -> None:
        """Take ``document``'s chunks out of the index before they are deleted (their
        vectors go with them by cascade)."""
        fts_remove(document.workspace_id, list(document.chunks.values_list("pk", flat=True)))

    def vectors_changed(self, workspace_id: int, *, documents: Sequence[int] | None = None,
                        on_commit: bool = False) -> int:
        """The database's vectors (or their chunks' jurisdiction and lane) of ``documents``
        (pks; None: the whole workspace) changed. An index with a copy elsewhere updates
        it now, raising its sync error (``on_commit``: once the caller's transaction
        commits, a failure logged, and 0 returned); one that reads the database has
        nothing to do. Returns the vectors sent elsewhere (0 here)."""
        return 0
