"""Chunk indexes: the ``ChunkIndex`` interface, the lexical index (BM25 over chunk text,
heading and document title) and the registry of backends.

``ChunkIndex`` is the interface every index implements: ``lexical`` (SQLite FTS5, here),
``dense`` (exact cosine over in-database vectors, ``retrieval/dense.py``), ``hybrid``
(both fused by reciprocal rank, ``retrieval/hybrid.py``) and ``pinecone`` (the vector
index at scale, ``retrieval/pinecone_index.py``), DESIGN.md §5. ``index_get()`` returns
the one picked in settings (``CIQ_INDEX``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from django.db import connection

from ciq.text import INSTRUCTION_WORDS, STOPWORDS, content_terms, stem, tokenize
from retrieval.fts import fts_document_frequencies, fts_exists, fts_table, smoothed_idf

# BM25 column weights for (text, heading, title): a query word in the section heading or
# in the document title says more about the chunk than one in running text.
COLUMN_WEIGHTS = (1.0, 2.0, 3.0)
# Longest query sent to the index, in distinct terms (a 100 kB question stays a query).
MAX_QUERY_TERMS = 48


@dataclass(frozen=True)
class Hit:
    """One ranked chunk: its primary key and the evidence of the index that found it.

    ``bm25`` ≥ 0 from the lexical ranking (0.0: not found lexically); ``cosine`` in
    [-1, 1] from a dense ranking (None: not found densely); ``rrf`` > 0, the reciprocal
    rank fusion score of a hybrid ranking (None: not fused). ``rank_score`` is the
    score the index ranked by (higher is better).
    """

    chunk_pk: int
    bm25: float = 0.0
    cosine: float | None = None
    rrf: float | None = None

    @property
    def rank_score(self) -> float:
        if self.rrf is not None:
            return self.rrf
        if self.cosine is not None:
            return self.cosine
        return self.bm25


class ChunkIndex(Protocol):
    """What every chunk index offers."""

    def search(
        self,
        query: str,
        *,
        workspace_id: int,
        k: int,
        jurisdictions: Collection[str] | None = None,
        lane: str | None = None,
        documents: Collection[int] | None = None,
        expansion: str = "",
    ) -> list[Hit]:
        """Top ``k`` chunks of the workspace for ``query``, best first, restricted to
        chunks whose jurisdiction is any of ``jurisdictions`` (None: no filter), to
        ``lane`` (None: both lanes) and to the documents ``documents`` (pks; None: all).
        ``expansion``: other phrasings of the question's terms (``retrieval.lexicon``),
        which a lexical index adds to its query and a dense one ignores (the question's
        own vector already places it among its paraphrases)."""
        ...

    def idf(self, terms: Collection[str], *, workspace_id: int) -> dict[str, float]:
        """Inverse document frequency of each Porter-stemmed term over the chunks of the
        workspace ``workspace_id`` (never another workspace's: ``retrieval.fts``)."""
        ...


def match_expression(query: str) -> str:
    """FTS5 MATCH expression for a free-text question: its distinct non-stopword tokens,
    each quoted (so user text can never be FTS syntax), joined with OR. "" if none."""
    seen: dict[str, None] = {}
    for token in tokenize(query):
        if token not in STOPWORDS and token not in INSTRUCTION_WORDS and (len(token) > 1 or token.isdigit()):
            seen.setdefault(token, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return " OR ".join(f'"{token}"' for token in seen)


class SQLiteFTSIndex:
    """BM25 over the workspace's own FTS5 table (:mod:`retrieval.fts`).

    Scores are SQLite's ``bm25()`` (Robertson & Zaragoza 2009, k1 = 1.2, b = 0.75) with
    ``COLUMN_WEIGHTS``, negated so that higher is better; its statistics (rows, mean
    length, document frequencies) are the workspace's alone.
    """

    def search(self, query, *, workspace_id, k, jurisdictions=None, lane=None, documents=None,
               expansion=""):
        expression = match_expression(f"{query} {expansion}")
        if not expression or k <= 0 or not fts_exists(workspace_id):
            return []
        weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
        table = fts_table(workspace_id)
        sql = [
            f"SELECT f.rowid, -bm25({table}, {weights}) AS score",
            f"FROM {table} AS f",
            "JOIN retrieval_chunk AS c ON c.id = f.rowid",
            "JOIN retrieval_document AS d ON d.id = c.document_id",
            f"WHERE {table} MATCH %s AND d.workspace_id = %s",
        ]
        params: list = [expression, workspace_id]
        if jurisdictions is not None:
            if not jurisdictions:
                return []
            sql.append(f"AND c.jurisdiction IN ({', '.join(['%s'] * len(jurisdictions))})")
            params.extend(sorted(jurisdictions))
        if lane is not None:
            sql.append("AND c.lane = %s")
            params.append(lane)
        if documents is not None:
            if not documents:
                return []
            sql.append(f"AND c.document_id IN ({', '.join(['%s'] * len(documents))})")
            params.extend(sorted(documents))
        sql.append("ORDER BY score DESC LIMIT %s")
        params.append(k)
        with connection.cursor() as cursor:
            cursor.execute("\n".join(sql), params)
            return [Hit(chunk_pk=row[0], bm25=float(row[1])) for row in cursor.fetchall()]

    def idf(self, terms, *, workspace_id):
        """BM25's idf from the workspace's FTS5 vocabulary, smoothed with a fixed public
        reference (:func:`retrieval.fts.smoothed_idf`) so that a workspace of a few
        documents still tells common words from rare ones."""
        terms = sorted(set(terms))
        if not terms:
            return {}
        n, df = fts_document_frequencies(workspace_id, terms)
        return smoothed_idf(terms, n, df)


# Backends by name (dotted paths: the dense ones import this module).
INDEXES: dict[str, str] = {
    "lexical": "retrieval.index.SQLiteFTSIndex",
    "dense": "retrieval.dense.DenseIndex",
    "hybrid": "retrieval.hybrid.HybridIndex",
    "pinecone": "retrieval.pinecone_index.PineconeIndex",
}
# Indexes that need an embedder (CIQ_EMBEDDER) for questions and chunks.
DENSE_INDEXES = frozenset({"dense", "hybrid", "pinecone"})


def index_get(name: str | None = None) -> ChunkIndex:
    """The chunk index named ``name`` (default ``settings.CIQ_INDEX``).

    Raises ``ImproperlyConfigured`` for an unknown name, for the lexical index (also
    inside ``hybrid``) on a database other than SQLite (the PostgreSQL full-text backend
    is not built yet), and for a dense index without an embedder or a Pinecone index
    without its key and host.
    """
    from django.core.exceptions import ImproperlyConfigured
    from django.utils.module_loading import import_string

    name = name or settings.CIQ_INDEX
    if name not in INDEXES:
        raise ImproperlyConfigured(f"CIQ_INDEX={name!r}: choose one of {sorted(INDEXES)}.")
    if connection.vendor != "sqlite":  # every index takes its term weights from FTS5
        raise ImproperlyConfigured(
            f"CIQ_INDEX={name}: the lexical index and the term weights of every index need "
            "SQLite FTS5 (DATABASE_URL=sqlite://…)."
        )
    return import_string(INDEXES[name])()


def query_terms(query: str) -> list[str]:
    """Distinct Porter stems of the query's content words (instruction words such as
    "draft" or "memo" left out), in order."""
    skip = {stem(w) for w in INSTRUCTION_WORDS}
    return [t for t in dict.fromkeys(content_terms(query)) if t not in skip][:MAX_QUERY_TERMS]
