"""Chunk indexes: the ``ChunkIndex`` interface, the lexical index (BM25 over chunk text,
heading and document title) and the registry of backends.

``ChunkIndex`` is the interface every index implements, its searches and its writes
(``retrieval/index_writes.py``): ``lexical`` (BM25 on SQLite FTS5
or on PostgreSQL full-text search, whichever database holds the chunks; here),
``dense`` (exact cosine over in-database vectors, ``retrieval/dense.py``), ``hybrid``
(both fused by reciprocal rank, ``retrieval/hybrid.py``) and ``pinecone`` (the vector
index at scale, ``retrieval/pinecone_index.py``), DESIGN.md §5. ``index_get()`` returns
the one picked in settings (``CIQ_INDEX``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from django.db import connection

from ciq.text import DISTRICT_CODE_RE, INSTRUCTION_WORDS, STOPWORDS, content_terms, stem, tokenize
from retrieval import fts_memory
from retrieval.fts import fts_document_frequencies, fts_exists, fts_idf, fts_table
from retrieval.fts_postgres import fts_search, phrase_terms
from retrieval.index_writes import IndexWrites

# BM25 column weights for (text, heading, title): a query word in the section heading or
# in the document title says more about the chunk than one in running text.
COLUMN_WEIGHTS = (1.0, 2.0, 3.0)
# Longest query sent to the index, in distinct terms (a 100 kB question stays a query).
MAX_QUERY_TERMS = 48
# Candidate limit of the lexical index on either database (issue 12), in postings. FTS5's
# bm25() reads every posting of every term it ranks (for its idf and for each match), so
# a question holding "shall" or "agreement" cost in proportion to the workspace (251 ms
# p50 at 100,000 chunks). Past this many postings the rarest terms are searched, as many
# as fit, and the common ones left out (:func:`match_tokens`; on PostgreSQL only with a
# documents filter, its impact-ordered postings otherwise: ``retrieval.fts_postgres``).
# A round value: at 4,108 chunks it leaves the median question of
# ``retrieval_dev.jsonl`` (7,800 postings) whole.
MATCH_POSTINGS = 10_000


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

    def upsert(self, document, chunks, *, vectors=None, model: str = "") -> None:
        """Index ``document``'s new ``chunks`` (and their ``vectors`` of embedder
        ``model``, when given) inside the caller's transaction
        (``retrieval.index_writes.IndexWrites``)."""
        ...

    def remove(self, document) -> None:
        """Take ``document``'s chunks out of the index before they are deleted."""
        ...

    def vectors_changed(self, workspace_id: int, *, documents=None, on_commit: bool = False) -> int:
        """The database's vectors, or their chunks' metadata, of ``documents`` (pks; None:
        the workspace's) changed; returns the vectors the index sent elsewhere."""
        ...


def query_tokens(query: str) -> list[str]:
    """The tokens a lexical index searches for: the zoning district codes the query names
    ("r-1a", each searched as the phrase of its terms "r 1 a", which its parts alone are
    too short or too common to find), then the query's distinct non-stopword,
    non-instruction tokens, in order; at most :data:`MAX_QUERY_TERMS`."""
    seen: dict[str, None] = {}
    for token in [code.lower() for code in DISTRICT_CODE_RE.findall(query)] + tokenize(query):
        if token not in STOPWORDS and token not in INSTRUCTION_WORDS and (len(token) > 1 or token.isdigit()):
            seen.setdefault(token, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)


def match_expression(tokens: Sequence[str]) -> str:
    """FTS5 MATCH expression for query tokens (:func:`query_tokens`), each quoted (so user
    text can never be FTS syntax), joined with OR. "" if none."""
    return " OR ".join(f'"{token}"' for token in tokens)


def match_tokens(tokens: Sequence[str], df: Mapping[str, int], budget: int = MATCH_POSTINGS) -> list[str]:
    """The ``tokens`` a lexical search reads, in their order: all of them when their
    postings (``df``: Porter stem → chunks holding it) stay within ``budget``; else the
    rarest first while they fit (at least the rarest one that some chunk holds).

    A candidate limit (the PostgreSQL index keeps the same budget with a documents
    filter, ``retrieval.fts_postgres.fts_search``, and scores its candidates over every
    term): a chunk that holds none of the rare terms is not ranked, and here the terms
    left out add nothing to the scores of those that are. They are the ones whose idf is
    lowest, so the order changes little: span recall@10 on
    ``retrieval_dev.jsonl`` is in the README ("Lexical search at 10k, 100k and 1M chunks")."""
    postings = [df.get(stem(t), 0) for t in tokens]
    if sum(postings) <= budget:
        return list(tokens)
    kept, used = set(), 0
    for i in sorted(range(len(tokens)), key=lambda i: (postings[i], i)):
        if used and used + postings[i] > budget:  # a term no chunk holds costs nothing
            break
        kept.add(i)
        used += postings[i]
    return [t for i, t in enumerate(tokens) if i in kept]


def _chunk_filters(workspace_id: int, jurisdictions: Collection[str] | None, lane: str | None,
                   documents: Collection[int] | None) -> tuple[str, list]:
    """The SQL condition on ``c`` (retrieval_chunk) and ``d`` (retrieval_document) that
    keeps the workspace's chunks of the search's filters, and its parameters."""
    sql, params = ["d.workspace_id = %s"], [workspace_id]
    if jurisdictions is not None:
        sql.append(f"c.jurisdiction IN ({', '.join(['%s'] * len(jurisdictions))})")
        params.extend(sorted(jurisdictions))
    if lane is not None:
        sql.append("c.lane = %s")
        params.append(lane)
    if documents is not None:
        sql.append(f"c.document_id IN ({', '.join(['%s'] * len(documents))})")
        params.extend(sorted(documents))
    return " AND ".join(sql), params


# Candidates checked against the workspace and the filters per query, at first (× 4 each
# further round): a lane's filter keeps about half of a question's matches.
SCOPE_BATCH = 200
SCOPE_BATCH_MAX = 10_000  # SQLite allows 32,766 parameters a statement


def _in_scope(rowids, scores, *, k: int, scope: str, params: list) -> list[Hit]:
    """The first ``k`` of the ranked ``rowids`` (with their ``scores``) that are chunks of
    the workspace and pass the filters (``scope``, :func:`_chunk_filters`), in order: the
    rows the SQL ranking's join keeps, read for the best candidates only."""
    hits: list[Hit] = []
    most = SCOPE_BATCH_MAX - len(params)  # the statement's variables: the batch and the filters
    start, size = 0, min(max(SCOPE_BATCH, 4 * k), most)
    while len(hits) < k and start < len(rowids):
        batch = rowids[start:start + size].tolist()
        # CROSS JOIN keeps the chunks as the outer loop (SQLite's planner would walk the
        # workspace's documents for the candidates instead: 4.7 ms for 200, here 0.1).
        with connection.cursor() as cursor:
            cursor.execute("SELECT c.id FROM retrieval_chunk AS c CROSS JOIN retrieval_document AS d "
                           f"ON d.id = c.document_id WHERE c.id IN ({', '.join(['%s'] * len(batch))}) "
                           f"AND {scope}", [*batch, *params])
            inside = {row[0] for row in cursor.fetchall()}
        for pk, score in zip(batch, scores[start:start + size].tolist(), strict=True):
            if pk in inside and len(hits) < k:
                hits.append(Hit(chunk_pk=pk, bm25=score))
        start, size = start + size, min(size * 4, most)
    return hits


class SQLiteFTSIndex(IndexWrites):
    """BM25 over the workspace's own FTS5 table (:mod:`retrieval.fts`).

    Scores are SQLite's ``bm25()`` (Robertson & Zaragoza 2009, k1 = 1.2, b = 0.75) with
    ``COLUMN_WEIGHTS``, negated so that higher is better; its statistics (rows, mean
    length, document frequencies) are the workspace's alone.
    """

    def search(self, query, *, workspace_id, k, jurisdictions=None, lane=None, documents=None,
               expansion=""):
        tokens = query_tokens(f"{query} {expansion}")
        if (not tokens or k <= 0 or (jurisdictions is not None and not jurisdictions)
                or (documents is not None and not documents) or not fts_exists(workspace_id)):
            return []
        table = fts_table(workspace_id)
        stems = sorted({stem(t) for t in tokens})
        df = fts_memory.document_frequencies(workspace_id, table, stems, COLUMN_WEIGHTS)
        if df is None:
            _, df = fts_document_frequencies(workspace_id, stems)
        kept = match_tokens(tokens, df, MATCH_POSTINGS)
        scope, params = _chunk_filters(workspace_id, jurisdictions, lane, documents)
        found = fts_memory.ranked(workspace_id, table, kept, COLUMN_WEIGHTS)
        if found is not None:
            return _in_scope(*found, k=k, scope=scope, params=params)
        weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
        sql = [
            f"SELECT f.rowid, -bm25({table}, {weights}) AS score",
            f"FROM {table} AS f",
            "JOIN retrieval_chunk AS c ON c.id = f.rowid",
            "JOIN retrieval_document AS d ON d.id = c.document_id",
            f"WHERE {table} MATCH %s AND {scope}",
            "ORDER BY score DESC LIMIT %s",
        ]
        with connection.cursor() as cursor:
            cursor.execute("\n".join(sql), [match_expression(kept), *params, k])
            return [Hit(chunk_pk=row[0], bm25=float(row[1])) for row in cursor.fetchall()]

    def idf(self, terms, *, workspace_id):
        """BM25's idf from the workspace's FTS5 vocabulary, smoothed with a fixed public
        reference (:func:`retrieval.fts.fts_idf`) so that a workspace of a few
        documents still tells common words from rare ones."""
        return fts_idf(terms, workspace_id=workspace_id)


class PostgresFTSIndex(IndexWrites):
    """BM25 over PostgreSQL full-text search (:mod:`retrieval.fts_postgres`): the same
    query (:func:`query_tokens`, each token a phrase of its FTS5 terms, OR-ed as a
    tsquery of quoted lexemes: user text is never tsquery syntax), the same lexemes, the
    same per-workspace statistics and the same score as :class:`SQLiteFTSIndex`.

    Impact-ordered postings give the candidates (the GIN index on the stored tsvector,
    with a documents filter); the score is FTS5's ``bm25()`` formula with
    ``COLUMN_WEIGHTS`` over the tsvector's weighted positions
    (:func:`retrieval.fts_postgres.fts_search`), not ``ts_rank_cd`` of the whole query:
    cover density has no idf and no length normalisation, so "shall" weighs as much as
    "dock" (span recall@10 on ``retrieval_dev.jsonl`` 0.53 with it, 0.91 with BM25;
    README "Running on PostgreSQL"). Scores are single precision; ties are broken by
    chunk pk, where FTS5 leaves them in index order.
    """

    def search(self, query, *, workspace_id, k, jurisdictions=None, lane=None, documents=None,
               expansion=""):
        tokens = query_tokens(f"{query} {expansion}")
        if not tokens or k <= 0:
            return []
        hits = fts_search(workspace_id, phrase_terms(tokens), k=k, weights=COLUMN_WEIGHTS,
                          jurisdictions=jurisdictions, lane=lane, documents=documents, budget=MATCH_POSTINGS)
        return [Hit(chunk_pk=pk, bm25=score) for pk, score in hits]

    def idf(self, terms, *, workspace_id):
        """The same smoothed idf as :meth:`SQLiteFTSIndex.idf`, from the workspace's
        counts in ``retrieval_lexical_df`` (:func:`retrieval.fts.fts_idf`)."""
        return fts_idf(terms, workspace_id=workspace_id)


# The lexical index of each database engine (``connection.vendor``).
LEXICAL_INDEXES = {"sqlite": SQLiteFTSIndex, "postgresql": PostgresFTSIndex}


def lexical_index() -> SQLiteFTSIndex | PostgresFTSIndex:
    """The lexical index of the database in use (``CIQ_INDEX=lexical``; the lexical half
    of ``hybrid``). Raises ``ImproperlyConfigured`` on an engine other than SQLite or
    PostgreSQL."""
    if connection.vendor not in LEXICAL_INDEXES:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            f"The lexical index and the term weights of every index need SQLite or PostgreSQL, "
            f"not {connection.vendor} (DATABASE_URL)."
        )
    return LEXICAL_INDEXES[connection.vendor]()


# Backends by name (dotted paths: the dense ones import this module).
INDEXES: dict[str, str] = {
    "lexical": "retrieval.index.lexical_index",
    "dense": "retrieval.dense.DenseIndex",
    "hybrid": "retrieval.hybrid.HybridIndex",
    "pinecone": "retrieval.pinecone_index.PineconeIndex",
}
# Indexes that need an embedder (CIQ_EMBEDDER) for questions and chunks.
DENSE_INDEXES = frozenset({"dense", "hybrid", "pinecone"})


def index_get(name: str | None = None) -> ChunkIndex:
    """The chunk index named ``name`` (default ``settings.CIQ_INDEX``).

    Raises ``ImproperlyConfigured`` for an unknown name, on a database other than SQLite
    or PostgreSQL (every index takes its term weights from the lexical store,
    ``retrieval.fts``), and for a dense index without an embedder or a Pinecone index
    without its key and host.
    """
    from django.core.exceptions import ImproperlyConfigured
    from django.utils.module_loading import import_string

    name = name or settings.CIQ_INDEX
    if name not in INDEXES:
        raise ImproperlyConfigured(f"CIQ_INDEX={name!r}: choose one of {sorted(INDEXES)}.")
    if connection.vendor not in LEXICAL_INDEXES:  # every index takes its term weights from it
        raise ImproperlyConfigured(
            f"CIQ_INDEX={name}: the lexical index and the term weights of every index need "
            f"SQLite or PostgreSQL (DATABASE_URL), not {connection.vendor}."
        )
    return import_string(INDEXES[name])()


def query_terms(query: str) -> list[str]:
    """Distinct Porter stems of the query's content words (instruction words such as
    "draft" or "memo" left out), in order."""
    skip = {stem(w) for w in INSTRUCTION_WORDS}
    return [t for t in dict.fromkeys(content_terms(query)) if t not in skip][:MAX_QUERY_TERMS]
