"""Rerank, recency, coverage and retrieval confidence with worked numbers (DESIGN.md §1)."""

import datetime as dt

import pytest

from retrieval.confidence import retrieval_confidence
from retrieval.jurisdiction import jurisdiction_ancestors, statewide_jurisdictions
from retrieval.search import RetrievedChunk, recency, rerank_score, term_coverage


def chunk(similarity=0.5, jurisdiction="US", label="12 CFR 1006.2", **kw) -> RetrievedChunk:
    defaults = dict(
        chunk_pk=1, chunk_id="0123456789ab", document_id=1, document_title="T",
        citation_label=label, jurisdiction=jurisdiction, jurisdiction_level="federal",
        lane="state", heading="", text="", char_start=0, char_end=1, page_start=None,
        page_end=None, last_updated=None, bm25=1.0, similarity=similarity,
    )
    return RetrievedChunk(**{**defaults, **kw})


def test_rerank_weighs_similarity_08_and_recency_02():
    assert rerank_score(0.7, 1.0) == pytest.approx(0.76)
    assert rerank_score(0.5, 0.0) == pytest.approx(0.40)


def test_recency_is_one_within_365_days_and_zero_after():
    today = dt.date(2026, 11, 21)
    assert recency(dt.date(2025, 11, 21), today=today) == 1.0
    assert recency(dt.date(2025, 11, 20), today=today) == 0.0
    assert recency(None, today=today) == 0.0


def test_term_coverage_is_the_idf_weighted_share_of_query_terms_present():
    idf = {"dock": 3.0, "permit": 1.0}
    assert term_coverage(["dock", "permit"], idf, "A permit is needed.") == pytest.approx(0.25)
    assert term_coverage(["dock", "permit"], idf, "Docks need permits.") == pytest.approx(1.0)
    assert term_coverage([], idf, "anything") == 0.0


def test_retrieval_confidence_worked_example_is_medium_with_reason():
    chunks = [
        chunk(similarity=0.8, jurisdiction="US-OR"),
        chunk(similarity=0.6, jurisdiction="US", label=""),
    ]
    result = retrieval_confidence(chunks, ["US-OR", "US", "US-OR-Rivergrove"])
    # 0.5 × 0.70 + 0.3 × 2/3 + 0.2 × 0.5 = 0.35 + 0.2 + 0.1 = 0.65
    assert result.score == pytest.approx(0.65)
    assert result.level == "Medium"
    assert result.reason == (
        "Medium: 2/3 jurisdictions covered, avg similarity 0.70, 50% chunks have citations"
    )


def test_high_confidence_needs_every_jurisdiction_covered():
    strong = [chunk(similarity=1.0, jurisdiction="US")]
    assert retrieval_confidence(strong, ["US"]).level == "High"  # 0.5 + 0.3 + 0.2 = 1.0
    # 0.5 × 1 + 0.3 × 0.5 + 0.2 = 0.85 > 0.8, but coverage < 1 → Medium
    assert retrieval_confidence(strong, ["US", "US-OR"]).level == "Medium"


def test_no_chunks_is_low_confidence():
    result = retrieval_confidence([], ["US"])
    assert result.level == "Low" and result.score == 0.0


def test_jurisdiction_chain_runs_up_to_federal():
    assert jurisdiction_ancestors("US-OR-Rivergrove") == ["US-OR", "US"]
    assert jurisdiction_ancestors("TX-houston") == ["TX", "US"]
    assert jurisdiction_ancestors("US") == []
    assert jurisdiction_ancestors("private") == []
    assert statewide_jurisdictions(["US-MO-Ray"]) == {"US-MO-Ray", "US-MO", "US"}
