"""Suggested follow-ups name sections about the question, never a meeting's agenda items
(issue 14: "What does … say in 'CALL TO ORDER AND ROLL CALL'?" followed a dock question)."""

import pytest

from ciq.text import content_terms
from retrieval.question import question_analyse
from sessions.services import session_ask

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("question, place", [
    ("Who has to approve cutting down a big oak in my backyard in Rivergrove?", "US-OR-Rivergrove"),
    ("What permits are needed to build or replace a dock in Rivergrove?", "US-OR-Rivergrove"),
    ("How long does a debt collector have to send the validation notice?", ""),
])
def test_suggestions_share_the_questions_topic_and_skip_minutes(demo_workspace, owner, question, place):
    turn = session_ask(workspace=demo_workspace, user=owner, question=question,
                       jurisdictions=[place] if place else [])
    topic = question_analyse(question).topic
    for suggestion in turn.suggested_followups:
        section = suggestion.split("“", 1)[1]
        stems = set(content_terms(section))
        assert any(all(s in stems for s in alt) for t in topic for alt in t.alternatives), suggestion
        assert "Minutes" not in suggestion and "ROLL CALL" not in suggestion.upper(), suggestion
        assert suggestion != question
