"""Hybrid retrieval: reciprocal rank fusion of the lexical and dense rankings."""

import pytest

from retrieval.hybrid import HybridIndex, rrf_fuse
from retrieval.index import Hit, lexical_index
from retrieval.models import Chunk
from retrieval.search import Budget, chunks_retrieve, hit_similarity
from retrieval.services import document_ingest, workspace_embed
from tests.retrieval.test_dense import DOCK_QUESTION, DOCKS, HashingEmbedder


def test_rrf_sums_reciprocal_ranks_with_k_60():
    lexical = [Hit(1, bm25=9.0), Hit(2, bm25=7.0), Hit(3, bm25=2.0)]
    dense = [Hit(3, cosine=0.8), Hit(4, cosine=0.7), Hit(1, cosine=0.5)]
    fused = rrf_fuse([lexical, dense], k=60)
    assert [h.chunk_pk for h in fused] == [1, 3, 2, 4]
    assert fused[0].rrf == pytest.approx(1 / 61 + 1 / 63)
    assert fused[1].rrf == pytest.approx(1 / 63 + 1 / 61)  # a tie: the lexical ranking's order
    assert fused[2].rrf == pytest.approx(1 / 62)
    assert (fused[0].bm25, fused[0].cosine) == (9.0, 0.5)
    assert (fused[3].bm25, fused[3].cosine) == (0.0, 0.7)


def test_hybrid_similarity_is_the_better_absolute_measure_times_the_relative_fused_score():
    best = Hit(1, bm25=9.0, cosine=0.5, rrf=2 / 61)
    found_by_both = Hit(2, bm25=3.0, cosine=0.72, rrf=1 / 62 + 1 / 65)
    lexical_only = Hit(3, bm25=5.0, rrf=1 / 63)
    assert hit_similarity(best, 0.9, best) == pytest.approx(0.9)
    assert hit_similarity(found_by_both, 0.4, best) == pytest.approx(0.72 * (1 / 62 + 1 / 65) / (2 / 61))
    assert hit_similarity(lexical_only, 0.6, best) == pytest.approx(0.6 * (1 / 63) / (2 / 61))
    assert hit_similarity(Hit(4, cosine=-0.2), 0.5, best) == 0.0  # dense: the clipped cosine


@pytest.mark.django_db
def test_hybrid_search_fuses_both_rankings_of_the_workspace_only(demo_workspace, other_workspace, settings):
    settings.HYBRID_DEPTH = 20
    embedder = HashingEmbedder()
    document_ingest(workspace=other_workspace, path=DOCKS)
    workspace_embed(workspace=demo_workspace, embedder=embedder)
    workspace_embed(workspace=other_workspace, embedder=embedder)
    index = HybridIndex(embedder)
    hits = index.search(DOCK_QUESTION, workspace_id=demo_workspace.pk, k=10)
    scope = {"workspace_id": demo_workspace.pk, "k": 20}
    lexical = {h.chunk_pk for h in lexical_index().search(DOCK_QUESTION, **scope)}
    dense = {h.chunk_pk for h in index.dense.search(DOCK_QUESTION, **scope)}
    assert len(hits) == 10 and {h.chunk_pk for h in hits} <= lexical | dense
    assert [h.rrf for h in hits] == sorted((h.rrf for h in hits), reverse=True)
    assert set(Chunk.objects.filter(pk__in=[h.chunk_pk for h in hits])
               .values_list("document__workspace_id", flat=True)) == {demo_workspace.pk}

    result = chunks_retrieve(DOCK_QUESTION, workspace=demo_workspace, budget=Budget.for_mode("answer"),
                             index=index)
    assert "88-2017" in result.chunks[0].document_title
    assert all(0.0 <= c.similarity <= 1.0 for c in result.chunks)
