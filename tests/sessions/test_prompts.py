"""Prompts: versioned, numbered context with chunk ids, the right prompt per request,
and the permits list parsed into data."""

import pytest

from retrieval.search import Budget, chunks_retrieve
from sessions.model_writer import ModelWriter
from sessions.prompts import answer, compliance, draft, revision, synthesis
from sessions.prompts.compliance import permits_parse
from sessions.writer import WriteRequest
from verification.prompts import judge, skeptic

pytestmark = pytest.mark.django_db


@pytest.fixture
def chunks(demo_workspace):
    return chunks_retrieve("tree removal permit", workspace=demo_workspace,
                           jurisdictions=["US-OR-Rivergrove"], budget=Budget.for_mode("answer")).chunks


def test_every_prompt_module_is_versioned():
    for module in (answer, compliance, draft, judge, revision, skeptic, synthesis):
        assert module.PROMPT_VERSION


def test_the_context_is_numbered_with_chunk_ids(chunks):
    prompt = answer.build(question="Q?", chunks=chunks, context="Sub-goals:\n- Answer: Q")
    for i, chunk in enumerate(chunks, 1):
        assert f"[{i}] chunk {chunk.chunk_id} |" in prompt.user
    assert "I don't have information about that in the documents." in prompt.system
    assert prompt.tag == "answer@1" and "Working memory" in prompt.user


@pytest.mark.parametrize("kwargs, name", [
    ({"mode": "draft"}, "draft"),
    ({"jurisdictions": ["US-OR-Rivergrove"]}, "compliance"),
    ({"findings": (revision.Finding("X is Y.", "not_found", "No passage."),),
      "previous_text": "X is Y."}, "revision"),
])
def test_the_writer_picks_the_prompt_for_the_request(chunks, kwargs, name):
    request = WriteRequest(**{"question": "Q?", "mode": "answer", "chunks": chunks, **kwargs})
    assert ModelWriter(chat=None).prompt(request).name == name


def test_one_lane_answers_use_the_answer_prompt_and_two_lanes_the_synthesis(chunks):
    lanes = {c.lane for c in chunks}
    request = WriteRequest(question="Q?", mode="answer", chunks=chunks)
    expected = "synthesis" if lanes == {"local", "state"} else "answer"
    assert ModelWriter(chat=None).prompt(request).name == expected
    local = [c for c in chunks if c.lane == "local"]
    assert ModelWriter(chat=None).prompt(
        WriteRequest(question="Q?", mode="answer", chunks=local)).name == "answer"


def test_the_permits_list_is_parsed_into_fields():
    text = (
        "## Municipal\n\nTrees need a permit [cite:0123456789ab].\n\n"
        "## Required permits and licenses\n\n"
        "- **Tree removal permit** | Issuing agency: City Manager | Jurisdiction: "
        "US-OR-Rivergrove | Link: none | Reference: Ord. 2023-1 § 4 [cite:0123456789ab]\n"
        "- Floodplain development permits are required before any work [cite:abcdef012345].\n"
    )
    assert permits_parse(text) == [
        {"name": "Tree removal permit", "agency": "City Manager",
         "jurisdiction": "US-OR-Rivergrove", "link": "", "reference": "Ord. 2023-1 § 4",
         "chunk_ids": ["0123456789ab"]},
        {"name": "Floodplain development permits are required before any work", "agency": "",
         "jurisdiction": "", "link": "", "reference": "", "chunk_ids": ["abcdef012345"]},
    ]
    assert permits_parse("No list here.") == []
