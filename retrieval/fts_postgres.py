"""The lexical index on PostgreSQL full-text search: the rows, lexemes and term statistics
of the SQLite FTS5 tables (:mod:`retrieval.fts`), in four tables (migrations 0005 and
0009).

- ``retrieval_lexical`` (chunk_id, workspace_id, length, tsv): one row per chunk with a
  stored ``tsvector`` whose positions carry the column as their weight: title ``A``,
  heading ``B``, text ``C`` (:data:`WEIGHT_LABELS`); ``length`` is the chunk's token
  count over the three columns (BM25's document length). GIN index on ``tsv``, b-tree on
  ``workspace_id``.
- ``retrieval_lexical_df`` (workspace_id, term, df): chunks of the workspace holding each
  term (fts5vocab's ``doc`` column);
- ``retrieval_lexical_stats`` (workspace_id, chunks, tokens): the workspace's row count
  and total length (BM25's N and mean document length);
- ``retrieval_lexical_posting`` (chunk_id, term, workspace_id, impact, jurisdiction,
  lane): one row per term of each chunk with the term's BM25 weight there and the
  chunk's filters (:func:`_with_postings`, :func:`fts_relabel`), indexed by (workspace,
  term, impact descending, chunk): a search reads each query term's best postings in its
  filters first and stops (:func:`fts_search`; migration 0009).

Lexemes. The tsvector is not made by a PostgreSQL text search configuration: each chunk
goes through SQLite's own FTS5 tokenizer (``porter unicode61 remove_diacritics 2``, the
SQLite index's, run on an in-memory table of Python's ``sqlite3``) and the tsvector is
built from its terms and token offsets. So the lexemes are exactly the SQLite index's
vocabulary: the Porter stems ``ciq.text`` asks idf for (snowball ``porter``, the same
algorithm) are found on PostgreSQL exactly when they are found on SQLite, term
statistics and BM25 scores agree, and a phrase query sees the same token positions. The
``english`` configuration stems with Porter2 ("generously" → "generous", where Porter
and CIQ say "gener") and drops its own stopwords ("the" gets no lexeme, while FTS5
indexes every token), so idf lookups would miss and positions would differ; ``simple``
does not stem at all.

Term statistics are maintained by the write functions (:func:`fts_add`,
:func:`fts_remove`, :func:`fts_retitle`, :func:`fts_drop`; ``retrieval.fts.fts_rebuild``) in the
caller's transaction, never computed at query time: ``ts_stat`` reads every row, and a
GIN count per term costs a bitmap scan of the term's postings (measured: README
"Running on PostgreSQL"). Every write first takes the workspace's lock on its counts
(:func:`_serialise`, a transaction-level advisory lock), so writes into one workspace
queue one behind the other until each transaction ends, and writes into different
workspaces never wait on each other. Taking the term rows in term order alone is not
enough: a re-ingest removes, then adds, in one transaction, and the terms of the new
text can be held by another re-ingest that is itself waiting on the first (a deadlock,
and PostgreSQL fails one of them; ``tests/retrieval/test_lexical_concurrency.py``).
No foreign keys:
like the FTS5 tables, these rows are written explicitly (``retrieval.services``,
``retrieval.signals``), and Django's test flush truncates its own tables only.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from ciq.text import text_folded

# Column (as FTS5 names it) → tsvector weight label; positions of the title come first.
WEIGHT_LABELS = {"title": "A", "heading": "B", "text": "C"}
COLUMN_ORDER = ("title", "heading", "text")
# PostgreSQL sorts a tsvector's positions, keeps a lexeme's first 256 and sets any above
# 16,383 to 16,383 (a chunk holds about 300 tokens); it refuses a lexeme of 2 kB or more.
MAX_LEXEME_BYTES = 2046  # a longer word is kept out of the tsvector
_BATCH = 500  # chunks per INSERT

_local = threading.local()


def _tokenizer() -> sqlite3.Connection:
    """This thread's in-memory SQLite table with the SQLite index's tokenizer."""
    conn = getattr(_local, "conn", None)
    if conn is None:
        from retrieval.fts import TOKENIZER  # retrieval.fts imports this module

        conn = sqlite3.connect(":memory:")
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, heading, title, tokenize = '{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        _local.conn = conn
    return conn


@dataclass(frozen=True)
class Tokens:
    """One chunk's FTS5 tokens: ``positions`` {term: [(column, offset)]} (offsets from 0
    within the column) and ``sizes`` {column: tokens}."""

    positions: dict[str, list[tuple[str, int]]]
    sizes: dict[str, int]

    @property
    def terms(self) -> list[str]:
        """The terms the tsvector holds, sorted (a word over 2 kB is left out)."""
        return sorted(t for t in self.positions if len(t.encode()) <= MAX_LEXEME_BYTES)

    @property
    def length(self) -> int:
        return sum(self.sizes.values())

    def tsvector(self) -> str:
        """The tsvector literal: each term with its positions (title from 1, then the
        heading, then the text, one unused position between columns so that a phrase
        never spans two of them) and their weight labels."""
        base, at = {}, 1
        for column in COLUMN_ORDER:
            base[column] = at
            at += self.sizes.get(column, 0) + 1
        return " ".join(
            _quote(term) + ":" + ",".join(f"{base[c] + o}{WEIGHT_LABELS[c]}" for c, o in self.positions[term])
            for term in self.terms)


def _quote(lexeme: str) -> str:
    """A lexeme as a quoted tsvector/tsquery literal (quotes and backslashes escaped):
    whatever the text, it is one lexeme, never an operator."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def tokens_of(rows: Sequence[tuple[str, str, str]]) -> list[Tokens]:
    """FTS5's tokens of each (text, heading, title) in ``rows`` (folded,
    :func:`ciq.text.text_folded`), in order."""
    conn = _tokenizer()
    out = [Tokens({}, {}) for _ in rows]
    with conn:
        conn.executemany("INSERT INTO t (rowid, text, heading, title) VALUES (?, ?, ?, ?)",
                         [(i, *map(text_folded, row)) for i, row in enumerate(rows)])
        for term, doc, column, offset in conn.execute("SELECT term, doc, col, offset FROM v"):
            tokens = out[doc]
            tokens.positions.setdefault(term, []).append((column, offset))
            tokens.sizes[column] = tokens.sizes.get(column, 0) + 1
        conn.execute("DELETE FROM t")
    return out


def phrase_terms(words: Sequence[str]) -> list[list[str]]:
    """The FTS5 terms of each of ``words`` (a phrase each: "logan's" → ["logan", "s"])."""
    return [[term for _, term in sorted((o, term) for term, places in t.positions.items() for _, o in places)]
            for t in tokens_of([(w, "", "") for w in words])]


def tsquery_any(phrases: Iterable[Sequence[str]]) -> str:
    """A tsquery literal matching any of ``phrases`` (each a list of terms, adjacent)."""
    parts = []
    for terms in phrases:
        if terms:
            parts.append(" <-> ".join(_quote(t) for t in terms))
    return " | ".join(f"( {p} )" for p in parts)


def fts_exists(workspace_id: int) -> bool:
    """Whether the workspace holds any indexed chunk."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM retrieval_lexical WHERE workspace_id = %s LIMIT 1", [workspace_id])
        return cursor.fetchone() is not None


# The advisory-lock class of the lexical counts: "CIQ" in ASCII (pg_advisory_xact_lock's
# two-key form; the second key is the workspace).
_LOCK_CLASS = 0x434951


def _serialise(cursor, workspace_id: int) -> None:
    """Take the workspace's lexical write lock until the caller's transaction ends
    (at once, in autocommit): every write function calls it before touching a row."""
    cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, workspace_id & 0x7FFFFFFF])


def _count(cursor, workspace_id: int, delta: Counter, chunks: int, tokens: int) -> None:
    """Add ``delta`` (term → chunks, may be negative) to the workspace's document
    frequencies and ``chunks`` / ``tokens`` to its totals; drop terms that reach 0."""
    if delta:
        terms = sorted(delta)
        cursor.execute(
            "INSERT INTO retrieval_lexical_df AS f (workspace_id, term, df) "
            "SELECT %s, x.term, x.n FROM unnest(%s::text[], %s::int[]) AS x(term, n) ORDER BY x.term "
            "ON CONFLICT (workspace_id, term) DO UPDATE SET df = f.df + EXCLUDED.df",
            [workspace_id, terms, [delta[t] for t in terms]])
        if any(n < 0 for n in delta.values()):
            cursor.execute("DELETE FROM retrieval_lexical_df WHERE workspace_id = %s AND term = ANY(%s) "
                           "AND df <= 0", [workspace_id, [t for t in terms if delta[t] < 0]])
    if chunks or tokens:
        cursor.execute(
            "INSERT INTO retrieval_lexical_stats AS s (workspace_id, chunks, tokens) VALUES (%s, %s, %s) "
            "ON CONFLICT (workspace_id) DO UPDATE SET chunks = s.chunks + EXCLUDED.chunks, "
            "tokens = s.tokens + EXCLUDED.tokens", [workspace_id, chunks, tokens])


# Mean chunk length, in tokens, that a stored impact assumes (:func:`_with_postings`): a
# round value near the corpus ``ciq_legal_v1``'s mean (314 tokens over its 4,108 chunks).
# A constant, so that impacts written at different times compare; the workspace's own
# mean enters the exact score.
IMPACT_AVGDL = 300.0


def _with_postings(rows_sql: str, rows_params: list) -> tuple[str, list]:
    """One statement (SQL, parameters) that inserts lexical rows (``rows_sql``, an INSERT
    into ``retrieval_lexical`` without RETURNING, and its ``rows_params``) and their
    postings: per (chunk, term) the impact f · (k1 + 1) / (f + k1 · (1 − b + b · D /
    IMPACT_AVGDL)), BM25's term weight without idf (Robertson & Zaragoza 2009), with f the
    term's positions weighted by column (``retrieval.index.COLUMN_WEIGHTS``; the
    positions ``ts_rank_cd`` counts, :func:`fts_search`) and D the chunk's length in
    tokens; with the chunk's jurisdiction and lane. The order of a term's postings by
    impact is that of their exact scores up to the workspace's mean length, which moves
    with every write (Anh & Moffat, "Pruned query evaluation using pre-computed
    impacts", SIGIR 2006). One statement, not two: an ingest asks the database a bounded
    number of questions per file (``tests/retrieval/test_ingest.py``)."""
    from retrieval.index import COLUMN_WEIGHTS  # retrieval.index imports this module

    text_w, heading_w, title_w = COLUMN_WEIGHTS
    sql = (
        f"WITH l AS ({rows_sql} RETURNING chunk_id, workspace_id, length, tsv) "
        "INSERT INTO retrieval_lexical_posting (chunk_id, term, workspace_id, impact, jurisdiction, lane) "
        "SELECT l.chunk_id, u.lexeme, l.workspace_id, "
        "       f.tf * (%s + 1) / (f.tf + %s * (1 - %s + %s * l.length / %s)), c.jurisdiction, c.lane "
        "FROM l JOIN retrieval_chunk AS c ON c.id = l.chunk_id "
        "CROSS JOIN LATERAL unnest(l.tsv) AS u "
        "CROSS JOIN LATERAL (SELECT sum(CASE w WHEN 'A' THEN %s WHEN 'B' THEN %s ELSE %s END) "
        "                    FROM unnest(u.weights) AS w) AS f(tf)")
    return sql, [*rows_params, K1, K1, B, B, IMPACT_AVGDL, title_w, heading_w, text_w]


def fts_add(workspace_id: int, rows: Iterable[tuple[int, str, str, str]]) -> int:
    """Index ``rows`` of (chunk pk, text, heading, document title), write their postings
    and count their terms; the number added. Call inside the transaction that creates
    the chunks."""
    rows = list(rows)
    delta: Counter = Counter()
    tokens_total = 0
    with connection.cursor() as cursor:
        _serialise(cursor, workspace_id)
        for start in range(0, len(rows), _BATCH):
            batch = rows[start:start + _BATCH]
            tokens = tokens_of([(text, heading, title) for _, text, heading, title in batch])
            values = []
            for (pk, *_), t in zip(batch, tokens, strict=True):
                values += [pk, workspace_id, t.length, t.tsvector()]
                delta.update(t.terms)
                tokens_total += t.length
            insert = ("INSERT INTO retrieval_lexical (chunk_id, workspace_id, length, tsv) VALUES "
                      + ", ".join(["(%s, %s, %s, %s::tsvector)"] * len(batch)))
            cursor.execute(*_with_postings(insert, values))
        _count(cursor, workspace_id, delta, len(rows), tokens_total)
    return len(rows)


def fts_copy(workspace_id: int, pairs: Sequence[tuple[int, int]]) -> int:
    """Index each new chunk of ``pairs`` (new chunk pk, indexed chunk pk) as a copy of
    the other, whose text, heading and title it holds (``retrieval.scale``): its tsvector
    and length copied, its postings written, the workspace's counts added; the number
    indexed. Set-based, no tokenizing (the README, "Lexical search at 10k, 100k and 1M
    chunks", has its speed)."""
    if not pairs:
        return 0
    news = [new for new, _ in pairs]
    with connection.cursor() as cursor:
        _serialise(cursor, workspace_id)
        cursor.execute(*_with_postings("INSERT INTO retrieval_lexical (chunk_id, workspace_id, length, tsv) "
                                       "SELECT m.new, %s, s.length, s.tsv "
                                       "FROM unnest(%s::bigint[], %s::bigint[]) AS m(new, old) "
                                       "JOIN retrieval_lexical AS s ON s.chunk_id = m.old",
                                       [workspace_id, news, [old for _, old in pairs]]))
        cursor.execute("SELECT term, count(*) FROM retrieval_lexical_posting WHERE chunk_id = ANY(%s) "
                       "GROUP BY term", [news])
        delta = Counter(dict(cursor.fetchall()))
        cursor.execute("SELECT count(*), coalesce(sum(length), 0) FROM retrieval_lexical "
                       "WHERE chunk_id = ANY(%s)", [news])
        chunks, tokens = cursor.fetchone()
        _count(cursor, workspace_id, delta, chunks, int(tokens))
    return chunks


def fts_relabel(workspace_id: int, document_id: int) -> None:
    """Give the postings of the document's chunks their chunks' jurisdiction and lane
    again (after ``retrieval.services`` changed them), in the caller's transaction."""
    with connection.cursor() as cursor:
        _serialise(cursor, workspace_id)
        cursor.execute("UPDATE retrieval_lexical_posting AS p "
                       "SET jurisdiction = c.jurisdiction, lane = c.lane FROM retrieval_chunk AS c "
                       "WHERE c.id = p.chunk_id AND c.document_id = %s "
                       "AND p.workspace_id = %s", [document_id, workspace_id])


def fts_remove(workspace_id: int, chunk_pks: Sequence[int]) -> None:
    """Drop the chunks ``chunk_pks`` from the index, their postings and the workspace's
    counts (missing ones are ignored)."""
    if not chunk_pks:
        return
    with connection.cursor() as cursor:
        _serialise(cursor, workspace_id)
        cursor.execute("DELETE FROM retrieval_lexical_posting WHERE chunk_id = ANY(%s) AND workspace_id = %s",
                       [list(chunk_pks), workspace_id])
        cursor.execute(
            "WITH gone AS (DELETE FROM retrieval_lexical WHERE workspace_id = %s AND chunk_id = ANY(%s) "
            "RETURNING tsv, length) "
            "SELECT NULL, count(*), coalesce(sum(length), 0) FROM gone "
            "UNION ALL SELECT u.lexeme, count(*), 0 FROM gone, unnest(gone.tsv) AS u GROUP BY u.lexeme",
            [workspace_id, list(chunk_pks)])
        rows = cursor.fetchall()
        totals = next(r for r in rows if r[0] is None)
        delta = Counter({term: -n for term, n, _ in rows if term is not None})
        _count(cursor, workspace_id, delta, -totals[1], -totals[2])


def fts_retitle(workspace_id: int, document_id: int, title: str) -> None:
    """Index the document's chunks again under their new ``title`` (the title's terms
    change the workspace's counts). One transaction, the workspace's lock taken before
    the chunks are read, so no other write slips between the read and the re-index."""
    with transaction.atomic(), connection.cursor() as cursor:
        _serialise(cursor, workspace_id)
        cursor.execute("SELECT c.id, c.text, c.heading FROM retrieval_chunk AS c JOIN retrieval_lexical "
                       "AS l ON l.chunk_id = c.id WHERE c.document_id = %s AND l.workspace_id = %s",
                       [document_id, workspace_id])
        rows = cursor.fetchall()
        fts_remove(workspace_id, [pk for pk, _, _ in rows])
        fts_add(workspace_id, [(pk, text, heading, title) for pk, text, heading in rows])


def fts_drop(workspace_id: int) -> None:
    """Drop the workspace's rows, postings and counts."""
    with connection.cursor() as cursor:
        _serialise(cursor, workspace_id)
        for table in ("retrieval_lexical", "retrieval_lexical_posting", "retrieval_lexical_df",
                      "retrieval_lexical_stats"):
            cursor.execute(f"DELETE FROM {table} WHERE workspace_id = %s", [workspace_id])


def fts_document_frequencies(workspace_id: int,
                             terms: Sequence[str] | None = None) -> tuple[int, dict[str, int]]:
    """(chunks of the workspace, {term: chunks holding it}) for ``terms`` (None: every
    term); (0, {}) for a workspace with no chunk."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT chunks FROM retrieval_lexical_stats WHERE workspace_id = %s", [workspace_id])
        row = cursor.fetchone()
        if row is None or not row[0]:
            return 0, {}
        if terms is None:
            cursor.execute("SELECT term, df FROM retrieval_lexical_df WHERE workspace_id = %s",
                           [workspace_id])
        elif not terms:
            return row[0], {}
        else:
            cursor.execute("SELECT term, df FROM retrieval_lexical_df WHERE workspace_id = %s "
                           "AND term = ANY(%s)", [workspace_id, list(terms)])
        return row[0], dict(cursor.fetchall())


def fts_totals(workspace_id: int) -> tuple[int, int]:
    """(chunks, tokens) of the workspace's index; (0, 0) when it holds none."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT chunks, tokens FROM retrieval_lexical_stats WHERE workspace_id = %s",
                       [workspace_id])
        row = cursor.fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def fts_phrase_count(workspace_id: int, terms: Sequence[str]) -> int:
    """Chunks of the workspace holding the phrase ``terms`` (a GIN search)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM retrieval_lexical WHERE workspace_id = %s "
                       "AND tsv @@ %s::tsquery", [workspace_id, tsquery_any([terms])])
        return cursor.fetchone()[0]


def fts_documents_with_phrases(workspace_id: int, phrases: Sequence[Sequence[str]],
                               limit: int) -> list[tuple[int, str]]:
    """(document pk, jurisdiction) of up to ``limit`` documents of the workspace whose
    text, heading or title holds any of ``phrases`` (word lists)."""
    query = tsquery_any(phrase_terms([" ".join(words)])[0] for words in phrases)
    if not query:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT d.id, d.jurisdiction FROM retrieval_lexical AS l "
            "JOIN retrieval_chunk AS c ON c.id = l.chunk_id "
            "JOIN retrieval_document AS d ON d.id = c.document_id "
            "WHERE l.workspace_id = %s AND d.workspace_id = %s AND l.tsv @@ %s::tsquery LIMIT %s",
            [workspace_id, workspace_id, query, limit])
        return cursor.fetchall()


# BM25's parameters, as SQLite's bm25() fixes them (fts5_aux.c).
K1 = 1.2
B = 0.75


def bm25_idf(n: int, hits: int) -> float:
    """FTS5's idf of a phrase found in ``hits`` of ``n`` chunks: ln((N − n + 0.5) /
    (n + 0.5)), at least 10⁻⁶ (fts5_aux.c ``fts5Bm25GetData``)."""
    return max(1e-6, math.log((n - hits + 0.5) / (hits + 0.5)))


# Impact-ordered candidates (:func:`fts_search`, Anh & Moffat 2006): postings read per
# query term, best first, and candidates re-scored exactly (at least this many, or 5 · k).
# Round values, checked on ``retrieval_dev.jsonl``: every question's top 10, unfiltered
# and in each lane, is that of ranking every match
# (``tests/retrieval/test_lexical_postings.py``).
TOP_POSTINGS = 1_000
RESCORE = 200


def fts_search(workspace_id: int, phrases: Sequence[Sequence[str]], *, k: int,
               weights: tuple[float, float, float], jurisdictions: Collection[str] | None = None,
               lane: str | None = None, documents: Collection[int] | None = None,
               budget: int = 10_000) -> list[tuple[int, float]]:
    """Top ``k`` (chunk pk, BM25 score) of the workspace for any of ``phrases`` (term
    lists, :func:`phrase_terms`), best first (ties: lower pk first), filtered like the
    SQLite index.

    The score is FTS5's ``bm25()``: score = Σ over phrases of idf · f · (k1 + 1) /
    (f + k1 · (1 − b + b · D / avgdl)), k1 = 1.2, b = 0.75 (Robertson & Zaragoza 2009),
    with D the chunk's length in tokens, avgdl and idf (:func:`bm25_idf`) from the
    workspace's counts, and f the phrase's frequency weighted by column (``weights``:
    text, heading, title). f comes from ``ts_rank_cd`` of the phrase alone with
    normalisation 0, which for a one-term query is the sum of the weights of the term's
    positions, and for a phrase the weight of each occurrence of it (its covers): the
    frequency FTS5 counts. ``ts_rank_cd`` takes weights in [0, 1], so they are divided by
    the largest and f multiplied back; it computes in single precision, so scores match
    SQLite's to about 7 digits.

    Which chunks are ranked: impact-ordered candidates (Anh & Moffat 2006), the first
    :data:`TOP_POSTINGS` postings of each phrase by impact (of its rarest term for a
    phrase of several) within the filters, each candidate's impacts summed with idf, and
    the best max(:data:`RESCORE`, 5 · k) scored exactly as above. The work is bounded
    by the question's terms, not the workspace's size (the README, "Lexical search at
    10k, 100k and 1M chunks"), and every match is ranked when each phrase has at most
    :data:`TOP_POSTINGS` postings and the matches are at most :data:`RESCORE`. With a
    ``documents`` filter, which the postings cannot walk to, every match is ranked while
    the phrases' postings together stay within ``budget``
    (``retrieval.index.MATCH_POSTINGS``), and past it the chunks holding the rarest
    phrases, as many as fit.
    """
    phrases = [list(p) for p in phrases if p]
    n, tokens = fts_totals(workspace_id)
    if not phrases or k <= 0 or not n:
        return []
    if jurisdictions is not None and not jurisdictions or documents is not None and not documents:
        return []
    _, df = fts_document_frequencies(workspace_id, sorted({t for p in phrases for t in p}))
    hits = [df.get(p[0], 0) if len(p) == 1 else fts_phrase_count(workspace_id, p) for p in phrases]
    idfs = [bm25_idf(n, h) for h in hits]
    scope = _Scope(workspace_id, phrases, idfs, tokens / n, weights, jurisdictions, lane, documents, k)
    if documents is None:
        leads = [min(p, key=lambda t: (df.get(t, 0), t)) for p in phrases]
        return scope.rescored(scope.candidates(leads, TOP_POSTINGS, max(RESCORE, 5 * k)))
    rest = sorted(range(len(phrases)), key=lambda i: (hits[i], i))  # rarest first
    rare = [rest.pop(0)]
    while rest and (not hits[rare[-1]] or sum(hits[i] for i in rare) + hits[rest[0]] <= budget):
        rare.append(rest.pop(0))
    return scope.ranked(rare)


@dataclass(frozen=True)
class _Scope:
    """One search: the workspace, the question's phrases and their idf, the filters."""

    workspace_id: int
    phrases: list[list[str]]
    idfs: list[float]
    avgdl: float
    weights: tuple[float, float, float]
    jurisdictions: Collection[str] | None
    lane: str | None
    documents: Collection[int] | None
    k: int

    def filters(self, alias: str) -> tuple[list[str], list]:
        """The filters as SQL conditions on the chunk or posting ``alias`` and their
        parameters (a posting has no document: :func:`fts_search` never reads postings
        with a documents filter)."""
        sql, params = [], []
        if self.jurisdictions is not None:
            sql.append(f"AND {alias}.jurisdiction = ANY(%s)")
            params.append(sorted(self.jurisdictions))
        if self.lane is not None:
            sql.append(f"AND {alias}.lane = %s")
            params.append(self.lane)
        if self.documents is not None:
            sql.append(f"AND {alias}.document_id = ANY(%s)")
            params.append(sorted(self.documents))
        return sql, params

    def candidates(self, leads: list[str], depth: int, count: int) -> list[int]:
        """The ``count`` chunk pks of the best approximate score, Σ idf · impact over
        the first ``depth`` postings (in the filters) of each phrase's lead term
        (``leads``, one per phrase), ties in chunk order."""
        conditions, params = self.filters("p")
        sql = ["WITH q AS (SELECT * FROM unnest(%s::text[], %s::float8[]) AS q(term, idf))",
               "SELECT t.chunk_id FROM q CROSS JOIN LATERAL (",
               "  SELECT p.chunk_id, p.impact FROM retrieval_lexical_posting AS p",
               "  WHERE p.workspace_id = %s AND p.term = q.term", *conditions,
               "  ORDER BY p.impact DESC, p.chunk_id LIMIT %s) AS t",
               "GROUP BY t.chunk_id ORDER BY sum(q.idf * t.impact) DESC, t.chunk_id LIMIT %s"]
        with connection.cursor() as cursor:
            cursor.execute("\n".join(sql), [leads, self.idfs, self.workspace_id, *params, depth, count])
            return [pk for (pk,) in cursor.fetchall()]

    def ranked(self, among: Iterable[int]) -> list[tuple[int, float]]:
        """Top k of the chunks holding any of the phrases ``among`` (indexes), each
        scored over every phrase."""
        return self._top("l.tsv @@ %s::tsquery", tsquery_any(self.phrases[i] for i in among))

    def rescored(self, chunk_pks: list[int]) -> list[tuple[int, float]]:
        """Top k of the chunks ``chunk_pks``, each scored over every phrase."""
        return self._top("l.chunk_id = ANY(%s)", chunk_pks) if chunk_pks else []

    def _top(self, which: str, value) -> list[tuple[int, float]]:
        """Top k of the workspace's chunks that ``which`` (a condition on ``l`` with one
        parameter, ``value``) and the filters admit, by exact score."""
        top = max(self.weights)
        text_w, heading_w, title_w = (w / top for w in self.weights)
        conditions, filter_params = self.filters("c")
        sql = [
            "WITH q AS (SELECT * FROM unnest(%s::tsquery[], %s::float8[]) AS q(query, idf))",
            "SELECT l.chunk_id, (",
            "  SELECT sum(q.idf * f.tf * (%s + 1) / (f.tf + %s * (1 - %s + %s * l.length / %s)))",
            "  FROM q CROSS JOIN LATERAL (SELECT %s * ts_rank_cd(%s::float4[], l.tsv, q.query, 0) AS tf",
            "                             WHERE l.tsv @@ q.query) AS f",  # cheaper than ranking a miss
            "  WHERE f.tf > 0) AS score",
            "FROM retrieval_lexical AS l JOIN retrieval_chunk AS c ON c.id = l.chunk_id",
            f"WHERE l.workspace_id = %s AND {which}", *conditions,
            "ORDER BY score DESC, l.chunk_id LIMIT %s",
        ]
        params: list = [[tsquery_any([p]) for p in self.phrases], self.idfs, K1, K1, B, B, self.avgdl,
                        top, [0.0, text_w, heading_w, title_w], self.workspace_id, value,
                        *filter_params, self.k]
        with connection.cursor() as cursor:
            cursor.execute("\n".join(sql), params)
            return [(pk, float(score or 0.0)) for pk, score in cursor.fetchall()]
