"""Hybrid retrieval: the lexical (BM25) and dense (cosine) rankings fused by reciprocal
rank fusion.

RRF (Cormack, Clarke & Büttcher 2009, "Reciprocal Rank Fusion outperforms Condorcet and
individual rank learning methods", SIGIR): score(d) = Σ over rankings r of
1 / (k + rank_r(d)), ranks from 1, k = 60 (``RRF_K``). It needs no score calibration
between BM25 and cosine, only ranks.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from retrieval.dense import DenseIndex
from retrieval.embedders import Embedder
from retrieval.index import Hit, lexical_index
from retrieval.index_writes import IndexWrites


def rrf_fuse(rankings: Sequence[Sequence[Hit]], *, k: int) -> list[Hit]:
    """Fuse ``rankings`` (each best first) by RRF with constant ``k``.

    Returns one ``Hit`` per chunk, best first (ties: the chunk that ranked higher in the
    earlier ranking first), with ``rrf`` = Σ 1 / (k + rank) and the ``bm25`` and
    ``cosine`` the chunk had in the rankings that found it.
    """
    fused: dict[int, dict] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, 1):
            entry = fused.setdefault(hit.chunk_pk, {"rrf": 0.0, "bm25": 0.0, "cosine": None})
            entry["rrf"] += 1.0 / (k + rank)
            entry["bm25"] = max(entry["bm25"], hit.bm25)
            if hit.cosine is not None:
                entry["cosine"] = hit.cosine
    ordered = sorted(fused.items(), key=lambda item: -item[1]["rrf"])  # stable: first seen wins ties
    return [Hit(chunk_pk=pk, **entry) for pk, entry in ordered]


class HybridIndex(IndexWrites):
    """Lexical and dense search of the same workspace, lane and jurisdictions, each read
    ``HYBRID_DEPTH`` deep (at least k), fused by :func:`rrf_fuse` with ``RRF_K``. With an
    ``expansion`` (``retrieval.lexicon`` phrasings) the expanded BM25 query is a third
    ranking, so other wordings add candidates without displacing the question's own.

    Raises what :class:`retrieval.dense.DenseIndex` raises.
    """

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.lexical = lexical_index()
        self.dense = DenseIndex(embedder)

    def search(self, query, *, workspace_id, k, jurisdictions=None, lane=None, documents=None,
               expansion=""):
        if k <= 0:
            return []
        depth = max(k, settings.HYBRID_DEPTH)
        scope = {"workspace_id": workspace_id, "k": depth, "jurisdictions": jurisdictions, "lane": lane,
                 "documents": documents}
        rankings = [self.lexical.search(query, **scope), self.dense.search(query, **scope)]
        if expansion:  # the widened query is a third ranking, so it adds without drowning
            rankings.append(self.lexical.search(query, expansion=expansion, **scope))
        return rrf_fuse(rankings, k=settings.RRF_K)[:k]

    def idf(self, terms, *, workspace_id):
        return self.lexical.idf(terms, workspace_id=workspace_id)
