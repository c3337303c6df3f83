"""Near misses that a loose thesaurus turned into confident answers, on real documents of
the shared corpus (hand-written questions): a house's walls do not answer a fence
question, the Oregon Health Authority is no permission, and a council's minutes do not
state the law of its meetings."""

import pytest

from sessions.models import Outcome, RunStatus
from sessions.services import session_ask
from tests.conftest import CORPUS_DIR, corpus_workspace_of

pytestmark = pytest.mark.django_db

EAVES = CORPUS_DIR / "municipal" / "us-or-rivergrove" / "ordinances" / "1993-Ord-57-93-Manufactured-Homes.md"
MEDICAID = CORPUS_DIR / "state" / "us-or" / "ors_chapter_414.html"


@pytest.fixture
def senses(db):
    """Rivergrove's manufactured-homes ordinance (eaves, exterior walls) and ORS ch. 414
    (penalties the Oregon Health Authority imposes)."""
    return corpus_workspace_of("Senses", EAVES, MEDICAID)


def ask(workspace, question):
    turn = session_ask(workspace=workspace, question=question)
    assert turn.status == RunStatus.COMPLETED, turn.error
    return turn


@pytest.mark.parametrize("question", [
    # "Eaves must extend at least six inches from … the exterior walls": a wall, not a fence
    "How tall can a fence be in Rivergrove?",
    # "the Oregon Health Authority shall impose a penalty on the managed care organization"
    "What's the penalty in Oregon for using someone else's credit card without permission?",
])
def test_a_word_of_another_sense_does_not_answer(senses, question):
    turn = ask(senses, question)
    assert turn.outcome == Outcome.NOT_ANSWERED, turn.answer_markdown
    assert turn.claim_confidence["level"] not in ("high", "medium")


def test_the_minutes_of_a_meeting_do_not_state_the_law_of_meetings(demo_workspace):
    turn = ask(demo_workspace, "Can the Rivergrove city council hold a closed meeting?")
    cited = {s["document_title"] for s in turn.sources if s["chunk_id"] in turn.answer_markdown}
    assert not any("Minutes" in title for title in cited), turn.answer_markdown
