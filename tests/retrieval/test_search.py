"""Lexical index, jurisdiction filter and lanes on the ingested samples."""

from types import SimpleNamespace

import pytest

from retrieval.index import lexical_index, match_expression, query_tokens
from retrieval.models import Chunk, Document, Lane
from retrieval.plan import question_plan
from retrieval.search import DUPLICATE_SHARE, Budget, _lane_capped, chunks_retrieve, with_first_stage
from tests.retrieval.fts_support import fts_rows

pytestmark = pytest.mark.django_db



def test_a_dock_question_finds_the_docks_ordinance_first(demo_workspace):
    result = chunks_retrieve(
        "standards for the construction of a dock in the water quality resource area",
        workspace=demo_workspace, budget=Budget.for_mode("answer"),
    )
    assert "88-2017" in result.chunks[0].document_title
    assert [c.rank for c in result.chunks] == list(range(1, len(result.chunks) + 1))
    scores = [c.score for c in result.chunks]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= c.similarity <= 1.0 for c in result.chunks)


def test_answer_mode_keeps_six_and_draft_keeps_up_to_fifteen(demo_workspace):
    question = "permit application review notice appeal city council planning commission"
    answer = chunks_retrieve(question, workspace=demo_workspace, budget=Budget.for_mode("answer"))
    draft = chunks_retrieve(question, workspace=demo_workspace, budget=Budget.for_mode("draft"))
    assert len(answer.chunks) == 6
    assert 6 < len(draft.chunks) <= 15


def test_lanes_respect_their_caps(demo_workspace):
    result = chunks_retrieve(
        "county planning zoning permit requirements notice hearing",
        workspace=demo_workspace, budget=Budget.for_mode("draft"),
    )
    local = [c for c in result.chunks if c.lane == Lane.LOCAL]
    state = [c for c in result.chunks if c.lane == Lane.STATE]
    assert len(local) <= 10 and len(state) <= 5 + max(0, 10 - len(local))  # Draft shares the caps
    assert result.lanes["local"]["kept"] == len(local)
    assert result.lanes["state"]["kept"] == len(state)


def test_a_draft_on_federal_law_alone_fills_its_context_from_the_state_lane(demo_workspace):
    """The lane caps share the context between local and state law; with no local
    candidate the state lane takes the rest (Draft keeps 15), while Answer mode keeps
    the state lane's cap of 5."""
    question = "Draft a memo on how a state applies for an exemption from the debt collection rules"
    analysis, _ = question_plan(question, workspace=demo_workspace, draft=True)
    draft = chunks_retrieve(question, workspace=demo_workspace, jurisdictions=["US"],
                            budget=Budget.for_mode("draft"), analysis=analysis)
    assert {c.lane for c in draft.chunks} == {Lane.STATE}
    assert len(draft.chunks) > 5


def test_a_lane_leaves_the_cap_it_cannot_fill_to_the_other_only_when_caps_are_shared():
    chunks = [SimpleNamespace(lane=Lane.LOCAL)] * 2 + [SimpleNamespace(lane=Lane.STATE)] * 20
    caps = {Lane.LOCAL.value: 10, Lane.STATE.value: 5}
    assert len(_lane_capped(chunks, caps)) == 2 + 5
    shared = _lane_capped(chunks, caps, share=True)
    assert [c.lane for c in shared].count(Lane.STATE) == 5 + 8  # the local lane's unused 8
    assert len(_lane_capped(chunks[:2] + chunks[2:5], caps, share=True)) == 5  # nothing to share


def test_a_town_target_draws_town_chunks_locally_and_state_and_federal_statewide(demo_workspace):
    result = chunks_retrieve(
        "notice of public hearing and appeal of a decision",
        workspace=demo_workspace, jurisdictions=["US-OR-Rivergrove"],
        budget=Budget.for_mode("draft"),
    )
    assert result.chunks
    for c in result.chunks:
        if c.lane == Lane.LOCAL:
            assert c.jurisdiction == "US-OR-Rivergrove"
        else:
            assert c.jurisdiction in {"US-OR", "US"}
    assert {c.lane for c in result.chunks} == {"local", "state"}


def test_a_county_target_excludes_town_and_firm_documents(demo_workspace):
    result = chunks_retrieve(
        "floodplain development permit", workspace=demo_workspace,
        jurisdictions=["US-MO-Ray"], budget=Budget.for_mode("draft"),
    )
    assert {c.jurisdiction for c in result.chunks} <= {"US-MO-Ray", "US-MO", "US"}
    assert any(c.jurisdiction == "US-MO-Ray" for c in result.chunks)


@pytest.mark.parametrize("parallel", [True, False])
def test_one_search_serves_when_the_parallel_state_lane_is_off(demo_workspace, settings, parallel):
    settings.ENABLE_PARALLEL_STATE_LANE = parallel
    result = chunks_retrieve(
        "mortgage assistance relief services", workspace=demo_workspace,
        budget=Budget.for_mode("answer"),
    )
    assert result.chunks[0].document_title.startswith("12 CFR Part 1015")


def test_overlapping_chunks_of_one_document_are_deduplicated(demo_workspace):
    result = chunks_retrieve(
        "floodplain development permit elevation", workspace=demo_workspace,
        budget=Budget.flat(15),
    )
    seen: dict[int, list[tuple[int, int]]] = {}
    for c in result.chunks:  # best first: none is half inside the chunks ranked above it
        shared = sum(max(0, min(c.char_end, end) - max(c.char_start, start))
                     for start, end in seen.get(c.document_id, []))
        assert shared < DUPLICATE_SHARE * (c.char_end - c.char_start)
        seen.setdefault(c.document_id, []).append((c.char_start, c.char_end))


def test_another_workspace_finds_nothing(other_workspace):
    result = chunks_retrieve("dock", workspace=other_workspace, budget=Budget.for_mode("answer"))
    assert result.chunks == []


def test_fts_syntax_in_a_question_is_searched_as_words(demo_workspace):
    expression = match_expression(query_tokens('dock" OR NEAR(pier wharf) * -'))
    assert expression == '"dock" OR "near" OR "pier" OR "wharf"'
    hits = lexical_index().search(
        'dock" AND (permit* OR NOT) NEAR', workspace_id=demo_workspace.pk, k=3
    )
    assert hits


def test_a_100_kb_question_is_cut_to_a_bounded_query(demo_workspace):
    question = "dock permit " + " ".join(f"word{i}" for i in range(15000))
    assert len(question) > 100_000
    assert match_expression(query_tokens(question)).count(" OR ") < 64
    result = chunks_retrieve(question, workspace=demo_workspace, budget=Budget.for_mode("answer"))
    assert result.chunks


def test_the_index_follows_chunk_deletes_and_title_changes(demo_workspace):
    assert fts_rows() == Chunk.objects.count()
    document = Document.objects.get(workspace=demo_workspace, title__contains="Docks")
    document.title = "Zyzzyva pier rules"
    document.save()
    hits = lexical_index().search("zyzzyva", workspace_id=demo_workspace.pk, k=50)
    assert {Chunk.objects.get(pk=h.chunk_pk).document_id for h in hits} == {document.pk}
    document.delete()
    assert fts_rows() == Chunk.objects.count()
    assert lexical_index().search("zyzzyva", workspace_id=demo_workspace.pk, k=5) == []


def test_a_recently_updated_document_is_lifted_by_the_recency_term(demo_workspace):
    import datetime as dt

    question = "standards for the construction of a dock in the water quality resource area"
    before = chunks_retrieve(question, workspace=demo_workspace, budget=Budget.for_mode("draft"))
    target = before.chunks[-1]
    Document.objects.filter(pk=target.document_id).update(last_updated=dt.date.today())
    after = chunks_retrieve(question, workspace=demo_workspace, budget=Budget.for_mode("draft"))
    lifted = next(c for c in after.chunks if c.chunk_id == target.chunk_id)
    assert target.recency == 0.0 and lifted.recency == 1.0
    assert lifted.score == pytest.approx(0.8 * lifted.similarity + 0.2, abs=1e-4)
    assert lifted.rank < target.rank


def test_the_best_hit_has_similarity_equal_to_its_coverage_and_weak_hits_are_dropped(
    demo_workspace,
):
    from retrieval.index import index_get, query_terms
    from retrieval.search import MIN_RELATIVE_SIMILARITY, term_coverage

    question = "mortgage assistance relief services advance fees"
    result = chunks_retrieve(question, workspace=demo_workspace, budget=Budget.flat(15))
    best = max(result.chunks, key=lambda c: c.bm25)
    terms = query_terms(question)
    coverage = term_coverage(terms, index_get().idf(terms, workspace_id=demo_workspace.pk),
                             f"{best.document_title}\n{best.heading}\n{best.text}")
    assert best.similarity == pytest.approx(coverage, abs=1e-4)
    top = max(c.similarity for c in result.chunks)
    assert all(c.similarity >= MIN_RELATIVE_SIMILARITY * top for c in result.chunks)


def _chunks(*pks):
    return [SimpleNamespace(chunk_pk=pk) for pk in pks]


@pytest.mark.parametrize("reranked, first_stage, reserve, expected", [
    # the index's best two are already among the rerank's six: nothing changes
    ((1, 2, 3, 4, 5, 6), (3, 1, 9), 2, (1, 2, 3, 4, 5, 6)),
    # the index's best is missing: it takes the last place, after the rerank's five best
    ((1, 2, 3, 4, 5, 6), (9, 1, 8), 2, (1, 2, 3, 4, 5, 9)),
    # both missing: the last two places, in the index's order
    ((1, 2, 3, 4, 5, 6), (9, 8, 7), 2, (1, 2, 3, 4, 9, 8)),
    # no reserve: the rerank alone decides
    ((1, 2, 3, 4, 5, 6), (9, 8, 7), 0, (1, 2, 3, 4, 5, 6)),
    # fewer chunks than the context holds: the missing one is added, none dropped
    ((1, 2), (9, 1), 2, (1, 2, 9)),
])
def test_the_index_s_own_best_chunks_keep_a_place_after_the_rerank(reranked, first_stage, reserve,
                                                                    expected):
    kept = with_first_stage(_chunks(*reranked), _chunks(*first_stage), keep=6, reserve=reserve)
    assert tuple(c.chunk_pk for c in kept) == expected


def test_answer_mode_context_holds_the_index_s_best_chunk(demo_workspace):
    question = "Until what time is the Rivergrove park open on a December evening?"
    analysis, routing = question_plan(question, workspace=demo_workspace)
    budget = Budget.for_mode("answer")
    index_order = chunks_retrieve(question, workspace=demo_workspace, jurisdictions=routing.targets,
                                  budget=Budget.flat(1))
    reranked = chunks_retrieve(question, workspace=demo_workspace, jurisdictions=routing.targets,
                               budget=budget, analysis=analysis)
    assert len(reranked.chunks) <= budget.keep
    assert index_order.chunks[0].chunk_pk in {c.chunk_pk for c in reranked.chunks}
