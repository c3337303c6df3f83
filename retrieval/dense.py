"""In-database vectors and exact cosine search (DESIGN.md §5, "vectors: in-database,
exact search").

Each chunk's vector is a ``ChunkVector`` row: float32 bytes, L2-normalised, tagged with
the embedder's name and size. A search loads one workspace's vectors of one model into
an ``n × d`` float32 matrix (kept in memory until a vector or a document of that
workspace changes), scores every row with one matrix–vector product and takes the top k
with ``argpartition``: no per-row work in Python, no query per chunk. This machine's
SQLite cannot load extensions (no sqlite-vec), so numpy does the search.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from django.db.models import Count, Max

from retrieval.embedders import Embedder, embedder_require, query_vector
from retrieval.fts import fts_idf
from retrieval.index import Hit
from retrieval.index_writes import IndexWrites
from retrieval.models import ChunkVector, Document

_CACHED_MATRICES = 8  # (workspace, model) matrices kept in memory


class DimensionMismatch(ValueError):
    """Stored vectors and the question's vector differ in size (the embedder changed
    without re-embedding)."""


def embedding_text(title: str, heading: str, text: str) -> str:
    """What is embedded for a chunk: document title, section heading and text, one per
    line (the title and heading situate a passage, as in the lexical index's columns)."""
    return "\n".join(part for part in (title, heading, text) if part)


@dataclass(frozen=True)
class VectorMatrix:
    """One workspace's vectors of one model: ``chunk_pks`` (n int64), ``matrix``
    (n × d float32, unit rows), ``jurisdictions`` (n int32 codes into ``codes``),
    ``lanes`` (n, the chunk's lane) and ``documents`` (n int64 document pks)."""

    chunk_pks: np.ndarray
    matrix: np.ndarray
    jurisdictions: np.ndarray
    codes: dict[str, int]
    lanes: np.ndarray
    documents: np.ndarray

    @property
    def dims(self) -> int:
        return int(self.matrix.shape[1])


def _stamp(workspace_id: int, model: str) -> tuple:
    """Changes whenever the workspace's vectors of ``model`` or its documents change:
    ids only grow (AUTOINCREMENT / identity), so (count, max id) moves on any insert or
    delete; a document's metadata (jurisdiction, lane) moves its ``updated``."""
    vectors = ChunkVector.objects.filter(workspace_id=workspace_id, model=model).aggregate(
        n=Count("id"), last=Max("id")
    )
    documents = Document.objects.filter(workspace_id=workspace_id).aggregate(last=Max("updated"))
    return vectors["n"], vectors["last"], documents["last"]


@lru_cache(maxsize=_CACHED_MATRICES)
def _matrix(workspace_id: int, model: str, stamp: tuple) -> VectorMatrix:
    rows = list(
        ChunkVector.objects.filter(workspace_id=workspace_id, model=model)
        .order_by("chunk_id")
        .values_list("chunk_id", "chunk__jurisdiction", "chunk__lane", "dims", "vector",
                     "chunk__document_id")
    )
    dims = {row[3] for row in rows}
    if len(dims) > 1:
        raise DimensionMismatch(
            f"Workspace {workspace_id} holds {model} vectors of sizes {sorted(dims)}: "
            "re-embed it (manage.py embed --workspace NAME --all)."
        )
    d = dims.pop() if dims else 0
    codes: dict[str, int] = {}
    matrix = np.frombuffer(b"".join(bytes(row[4]) for row in rows), dtype="<f4").reshape(len(rows), d)
    return VectorMatrix(
        chunk_pks=np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows)),
        matrix=matrix,
        jurisdictions=np.fromiter((codes.setdefault(row[1], len(codes)) for row in rows),
                                  dtype=np.int32, count=len(rows)),
        codes=codes,
        lanes=np.array([row[2] for row in rows], dtype="<U5"),
        documents=np.fromiter((row[5] for row in rows), dtype=np.int64, count=len(rows)),
    )


def vector_matrix(workspace_id: int, model: str) -> VectorMatrix:
    """The workspace's ``model`` vectors, from memory unless something changed since."""
    return _matrix(workspace_id, model, _stamp(workspace_id, model))


def cosine_top_k(
    matrix: np.ndarray, vector: np.ndarray, k: int, mask: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``matrix`` (n × d, unit rows) closest to ``vector`` (d, unit) by cosine
    similarity (= dot product of unit vectors), restricted to ``mask`` (n bool).

    Returns (row indices, cosines in [-1, 1]), best first, at most ``k``. Exact: every
    allowed row is scored (O(n·d)), then ``argpartition`` selects in O(n)."""
    scores = matrix @ vector
    allowed = np.flatnonzero(mask) if mask is not None else np.arange(len(scores))
    if k <= 0 or not len(allowed):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    sub = scores[allowed]
    if k < len(sub):
        top = np.argpartition(-sub, k - 1)[:k]
    else:
        top = np.arange(len(sub))
    top = top[np.argsort(-sub[top], kind="stable")]
    return allowed[top], sub[top]


def filter_mask(
    vectors: VectorMatrix, jurisdictions: Collection[str] | None, lane: str | None,
    documents: Collection[int] | None = None,
) -> np.ndarray | None:
    """Rows whose jurisdiction is any of ``jurisdictions`` (None: any), whose lane is
    ``lane`` (None: either) and whose document is one of ``documents`` (None: any); None
    when nothing is filtered."""
    mask = None
    if documents is not None:
        mask = np.isin(vectors.documents, np.asarray(sorted(documents), dtype=np.int64))
    if jurisdictions is not None:
        wanted = [vectors.codes[j] for j in jurisdictions if j in vectors.codes]
        in_jurisdiction = np.isin(vectors.jurisdictions, np.asarray(wanted, dtype=np.int32))
        mask = in_jurisdiction if mask is None else mask & in_jurisdiction
    if lane is not None:
        in_lane = vectors.lanes == str(lane)
        mask = in_lane if mask is None else mask & in_lane
    return mask


class DenseIndex(IndexWrites):
    """Exact cosine search over the workspace's in-database vectors of the configured
    embedder (``CIQ_EMBEDDER``).

    ``Hit.cosine`` is the cosine similarity in [-1, 1]; ``search`` puts the best first.
    Raises ``ImproperlyConfigured`` without an embedder, :class:`DimensionMismatch`
    when the stored vectors have another size than the question's, and
    :class:`retrieval.embedders.EmbeddingError` when the question cannot be embedded.
    """

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder or embedder_require()

    def search(self, query, *, workspace_id, k, jurisdictions=None, lane=None, documents=None,
               expansion=""):
        if k <= 0 or not query.strip() or (jurisdictions is not None and not jurisdictions) \
                or (documents is not None and not documents):
            return []
        vectors = vector_matrix(workspace_id, self.embedder.name)
        if not len(vectors.chunk_pks):
            return []
        vector = query_vector(self.embedder, query)
        if vector.shape[0] != vectors.dims:
            raise DimensionMismatch(
                f"{self.embedder.name} gives {vector.shape[0]}-dimensional question vectors but "
                f"the workspace's vectors have {vectors.dims}: re-embed it "
                "(manage.py embed --workspace NAME --all)."
            )
        rows, cosines = cosine_top_k(vectors.matrix, vector, k, filter_mask(vectors, jurisdictions, lane,
                                                                       documents))
        return [Hit(chunk_pk=int(vectors.chunk_pks[r]), cosine=float(c))
                for r, c in zip(rows, cosines, strict=True)]

    def idf(self, terms, *, workspace_id):
        """The lexical index's IDF (term weights for the Writer and the similarity)."""
        return fts_idf(terms, workspace_id=workspace_id)
