"""FTS5's ``bm25()`` computed in numpy from a workspace's postings held in memory: the
SQLite lexical index's ranking at a fraction of its cost (issue 12, "no slower than 2×
bm25s at 4k chunks"). SQLite only.

Why: ``bm25()`` is an FTS5 auxiliary function called once per matching row. For each
row it walks every query phrase's position list and reads the row's length from the
``_docsize`` table, and on its first call it reads every posting of every phrase again
for the idf. At 4,108 chunks a question matches about 3,000 of them and that ranking
took 4–5 ms of the 8 ms query (README "Lexical search at 10k, 100k and 1M chunks");
bm25s answers the same question in about 1 ms because it scored every term of every
chunk when it indexed them. Here each term's contribution to each chunk's score is
computed once, when the term is first searched, and a query adds the columns of its
terms, as bm25s does.

The scores are FTS5's to the bit: the same formula in the same order of operations
(``fts5Bm25Function`` in SQLite's ``fts5_aux.c``: k1 = 1.2, b = 0.75, idf =
ln((N − n + 0.5) / (n + 0.5)), 1e-6 when not above 0, phrase frequencies weighted by
column, the row's length over all columns against the mean), from FTS5's own counts:
the row count and token totals of its "averages" record, each row's length from
``_docsize`` and each term's instances from an ``fts5vocab`` table of type
'instance'. A phrase's contributions are added in the query's order, as FTS5 adds them,
and ties keep the rowid order in which FTS5 hands rows to the sorter.

What is held, per workspace of at most :data:`MEMORY_MAX_CHUNKS` chunks (the
:data:`MEMORY_WORKSPACES` last searched): the rows' lengths, and the score column of
each term searched since the workspace last changed. It is valid while the workspace's
FTS5 table is unchanged: every search first reads the table's averages and structure
records and its highest rowid (one query; any committed write changes them), and a write
through :mod:`retrieval.fts` in this process forgets the workspace (:func:`forget`). FTS5
writes its averages record only at commit, so a search inside a transaction works on a
private copy of what is held: what it reads there, its own writes included, which may
still be rolled back, is used but never kept.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from django.db import connection

# Largest workspace ranked in memory, in chunks: at this size the rows' rowids and lengths
# take 400 kB and a term searched at most 400 kB more (4,108 chunks: 2.0 MB after the 150
# questions of retrieval_dev.jsonl, 384 terms); a larger workspace is ranked by FTS5.
MEMORY_MAX_CHUNKS = 25_000
MEMORY_WORKSPACES = 8  # workspaces held at once, the last searched
# Bytes of term columns held per workspace before they are all dropped: a term costs 16 B
# a chunk holding it (int64 position, float64 score), so at most 400 kB at 25,000 chunks.
MEMORY_BYTES = 32 * 2**20
K1 = 1.2  # FTS5's bm25() constants (fts5_aux.c)
B = 0.75
COLUMNS = ("text", "heading", "title")  # the FTS5 table's columns, in order (retrieval.fts)

_lock = threading.Lock()
_workspaces: OrderedDict[int, _Workspace] = OrderedDict()
_generation: dict[int, int] = {}


@dataclass
class _Workspace:
    """One workspace's table as read at ``key``."""

    key: tuple
    rows: int  # N, FTS5's row count
    avgdl: float  # mean row length in tokens, all columns
    rowids: np.ndarray  # every row's rowid, ascending
    lengths: np.ndarray  # each row's length in tokens, all columns (float64)
    weights: tuple[float, ...]
    # term → (positions in ``rowids`` of the rows holding it, ascending; score contribution)
    terms: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    nbytes: int = 0  # of the arrays in ``terms``


def forget(workspace_id: int) -> None:
    """Drop what is held of the workspace (its table was just written in this process)."""
    with _lock:
        _generation[workspace_id] = _generation.get(workspace_id, 0) + 1
        _workspaces.pop(workspace_id, None)


def _varints(data: bytes) -> list[int]:
    from retrieval.fts import _varint

    values, at = [], 0
    while at < len(data):
        value, at = _varint(data, at)
        values.append(value)
    return values


def _current(workspace_id: int, table: str, weights: tuple[float, ...]) -> _Workspace | None:
    """The workspace's held postings, read anew when its table changed; None when it is
    too large to hold, or empty."""
    generation = _generation.get(workspace_id, 0)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT (SELECT block FROM {table}_data WHERE id = 1), "
                       f"(SELECT block FROM {table}_data WHERE id = 10), "
                       f"(SELECT max(id) FROM {table}_docsize)")
        averages, structure, last = cursor.fetchone()
    if not averages:
        return None
    key = (generation, bytes(averages), bytes(structure or b""), last, weights)
    held = _workspaces.get(workspace_id)
    if held is not None and held.key == key:
        if connection.in_atomic_block:
            # What a term reads here may include this transaction's own writes, which may
            # be rolled back: it goes to a private copy, never to what other searches share.
            return dataclasses.replace(held, terms=dict(held.terms))
        with _lock:
            if workspace_id in _workspaces:
                _workspaces.move_to_end(workspace_id)
        return held
    counts = _varints(bytes(averages))
    rows, tokens = counts[0], sum(counts[1:])
    if not rows or rows > MEMORY_MAX_CHUNKS:
        return None
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, sz FROM {table}_docsize ORDER BY id")
        sizes = cursor.fetchall()
    rowids = np.fromiter((row[0] for row in sizes), dtype=np.int64, count=len(sizes))
    lengths = np.fromiter((sum(_varints(bytes(row[1]))) for row in sizes), dtype=np.float64, count=len(sizes))
    held = _Workspace(key=key, rows=rows, avgdl=float(tokens) / float(rows), rowids=rowids,
                      lengths=lengths, weights=weights)
    with _lock:
        if _generation.get(workspace_id, 0) == generation and not connection.in_atomic_block:
            _workspaces[workspace_id] = held
            _workspaces.move_to_end(workspace_id)
            while len(_workspaces) > MEMORY_WORKSPACES:
                _workspaces.popitem(last=False)
    return held


def _term(held: _Workspace, table: str, term: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(positions of the rows holding ``term``, its bm25() contribution to each); None
    when the instances name a row whose length was not read."""
    found = held.terms.get(term)
    if found is not None:
        return found
    # Each row's phrase frequency, its instances weighted by column, summed by SQLite (a
    # third faster than reading every instance: "shall" has 10,355 in 2,430 chunks).
    # Whole numbers, so exact in any order.
    weighted = " ".join(f"WHEN '{c}' THEN {float(w)!r}" for c, w in zip(COLUMNS, held.weights, strict=True))
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_instance "
                       f"USING fts5vocab(main, {table}, 'instance')")
        cursor.execute(f"SELECT doc, SUM(CASE col {weighted} END) FROM temp.{table}_instance "
                       "WHERE term = %s GROUP BY doc ORDER BY doc", [term])
        rows = cursor.fetchall()
    rowids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    freq = np.fromiter((row[1] for row in rows), dtype=np.float64, count=len(rows))
    positions = np.searchsorted(held.rowids, rowids)
    if positions.size and (positions[-1] >= held.rowids.size
                           or not np.array_equal(held.rowids[positions], rowids)):
        return None  # a row the lengths were not read for: FTS5 ranks this query
    hits = int(positions.size)
    idf = math.log((held.rows - hits + 0.5) / (hits + 0.5))
    if idf <= 0.0:
        idf = 1e-6
    length = held.lengths[positions]
    # fts5Bm25Function, operation by operation (C evaluates left to right, no fused
    # multiply-add on these builds): idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl)))
    contribution = idf * ((freq * (K1 + 1.0)) / (freq + K1 * ((1 - B) + (B * length) / held.avgdl)))
    size = positions.nbytes + contribution.nbytes
    if held.nbytes + size > MEMORY_BYTES:
        held.terms.clear()
        held.nbytes = 0
    held.nbytes += size
    held.terms[term] = (positions, contribution)
    return positions, contribution


@lru_cache(maxsize=4096)
def fts_terms(word: str) -> tuple[str, ...]:
    """FTS5's terms of one query word (its tokenizer, stemmer included: "docks" →
    ("dock",), "r-1a" → ("r", "1a"))."""
    from retrieval.fts_postgres import phrase_terms

    return tuple(phrase_terms([word])[0])


def document_frequencies(workspace_id: int, table: str, terms: Sequence[str],
                         weights: tuple[float, ...]) -> dict[str, int] | None:
    """{term: chunks holding it} for FTS5 ``terms`` (those some chunk holds), from the
    held postings (the counts of the ``fts5vocab`` 'row' table); None when the
    workspace is too large to hold (:data:`MEMORY_MAX_CHUNKS`) or empty."""
    held = _usable(workspace_id, table, weights)
    if held is None:
        return None
    out = {}
    for term in terms:
        found = _term(held, table, term)
        if found is None:
            return None
        if found[0].size:
            out[term] = int(found[0].size)
    return out


def ranked(workspace_id: int, table: str, words: Sequence[str],
           weights: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """(rowids, scores) of every row holding any of ``words`` (each quoted as a phrase in
    an FTS5 OR query), best first, ties in rowid order: what ``SELECT rowid,
    -bm25(table, *weights) AS score … ORDER BY score DESC`` returns. None when this
    cannot answer: the workspace is too large or empty, or a word is a phrase of
    several terms (FTS5 then checks their positions)."""
    held = _usable(workspace_id, table, weights)
    if held is None or not words:
        return None
    phrases = [fts_terms(w) for w in words]
    if any(len(p) != 1 for p in phrases):
        return None
    scores = np.zeros(held.rowids.size, dtype=np.float64)
    matched = np.zeros(held.rowids.size, dtype=bool)
    for (term,) in phrases:  # in the query's order, as FTS5 adds them
        found = _term(held, table, term)
        if found is None:
            return None
        positions, contribution = found
        scores[positions] += contribution
        matched[positions] = True
    found = np.flatnonzero(matched)
    order = found[np.argsort(-scores[found], kind="stable")]
    return held.rowids[order], scores[order]


def _usable(workspace_id: int, table: str, weights: tuple[float, ...]) -> _Workspace | None:
    if connection.vendor != "sqlite":
        return None
    return _current(workspace_id, table, tuple(float(w) for w in weights))
