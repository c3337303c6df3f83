"""The append-only event log: dense seq per session and a verifiable hash chain."""

import pytest

from sessions.events import EventLog, event_chain_verify, event_message
from sessions.models import EventType, ResearchSession, SessionEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(demo_workspace):
    return ResearchSession.objects.create(workspace=demo_workspace, title="Log test")


def test_seq_is_dense_per_session_and_survives_a_new_log_object(session, demo_workspace):
    log = EventLog(session)
    log.emit(EventType.SESSION_CREATED, title="x")
    log.emit(EventType.REASONING_THOUGHT, text="plan")
    EventLog(session).emit(EventType.REASONING_ACTION, text="search")
    other = ResearchSession.objects.create(workspace=demo_workspace, title="Other")
    EventLog(other).emit(EventType.SESSION_CREATED, title="y")
    assert list(session.events.values_list("seq", flat=True)) == [1, 2, 3]
    assert list(other.events.values_list("seq", flat=True)) == [1]


def test_the_message_has_the_protocol_envelope(session):
    event = EventLog(session).emit(EventType.CONTENT_CHUNK, delta="Hé §", full_content="Hé §")
    message = event_message(event)
    assert message["type"] == "content_chunk"
    assert message["session"] == session.pk and message["seq"] == 1
    assert message["ts"] == event.created.isoformat()
    assert message["delta"] == "Hé §"


def test_an_intact_chain_verifies(session):
    log = EventLog(session)
    for i in range(5):
        log.emit(EventType.REASONING_THOUGHT, text=f"step {i}")
    assert event_chain_verify(session.events.order_by("seq")) == []


def test_an_edited_payload_breaks_the_chain_at_that_event(session):
    log = EventLog(session)
    for i in range(4):
        log.emit(EventType.REASONING_THOUGHT, text=f"step {i}")
    SessionEvent.objects.filter(session=session, seq=2).update(payload={"text": "forged"})
    problems = event_chain_verify(session.events.order_by("seq"))
    assert problems == ["seq 2: hash mismatch (event edited or chain broken)"]


def test_a_deleted_event_is_reported_as_a_gap(session):
    log = EventLog(session)
    for i in range(4):
        log.emit(EventType.REASONING_THOUGHT, text=f"step {i}")
    SessionEvent.objects.filter(session=session, seq=3).delete()
    problems = event_chain_verify(session.events.order_by("seq"))
    assert "seq 4: expected seq 3 (gap or reorder)" in problems


def test_envelope_keys_cannot_be_overridden(session):
    with pytest.raises(ValueError):
        EventLog(session).emit(EventType.ERROR, seq=99, message="x")
    with pytest.raises(ValueError):
        EventLog(session).emit("not_a_type")
