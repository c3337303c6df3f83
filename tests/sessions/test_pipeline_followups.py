"""Follow-up turns keep the earlier turns' context; streamed content is coalesced."""

import pytest

from sessions.models import RunStatus
from sessions.pipeline import turn_run
from sessions.services import session_ask, turn_create
from sessions.writer import coalesced
from verification.citations import cited_ids

pytestmark = pytest.mark.django_db

QUESTION = "When may a state apply for an exemption from the Fair Debt Collection Practices Act?"


def test_a_follow_up_carries_the_chunks_the_earlier_answers_cited(demo_workspace):
    first = session_ask(workspace=demo_workspace, question=QUESTION)
    session = first.session
    # The next retrieval widens the query with the previous question only, so the third
    # turn's search no longer finds the first turn's passages: they are carried over.
    turn_run(turn_create(session=session, question="Who may enforce the rules on debt collectors?"))
    third = turn_run(turn_create(
        session=session, question="What does Rivergrove require before removing a tree?"))
    assert third.status == RunStatus.COMPLETED, third.error
    earlier = {i for t in session.turns.filter(index__lt=3) for i in cited_ids(t.answer_markdown)}
    context = [s["chunk_id"] for s in third.sources]
    assert earlier <= set(context) and len(context) == len(set(context)) <= 10
    assert [s["rank"] for s in third.sources] == list(range(1, len(context) + 1))
    retrieval = session.events.filter(type="retrieval_completed").order_by("-seq").first()
    carried = retrieval.payload["carried"]
    assert carried >= 1 and set(context[len(context) - carried:]) <= earlier
    assert any("Rivergrove" in s["document_title"] for s in third.sources[: len(context) - carried])
    memory = third.working_memory
    assert memory["previous_questions"][0] == QUESTION and len(memory["previous_answers"]) == 2
    assert memory["previous_answers"][0][:40] in first.answer_markdown.replace("\n", " ")
    assert "[cite:" not in memory["previous_answers"][0]


def test_deltas_are_merged_by_size_and_time_without_changing_the_text():
    tokens = ["ab"] * 50
    merged = list(coalesced(tokens, interval_ms=10_000, min_chars=30))
    assert merged[0] == "ab"  # the first delta goes out at once
    assert all(len(m) >= 30 for m in merged[1:-1]) and "".join(merged) == "ab" * 50
    assert list(coalesced(tokens, interval_ms=0, min_chars=10_000)) == tokens


def test_a_run_stores_few_content_events(demo_workspace, settings):
    settings.STREAM_MIN_CHARS = 200
    turn = session_ask(workspace=demo_workspace, mode="draft", question=QUESTION)
    events = turn.session.events.filter(type="content_chunk", payload__cycle=0)
    assert events.count() <= len(turn.revisions.get(cycle=0).text) // 200 + 2
