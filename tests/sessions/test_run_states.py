"""Honest run states (issue 14 item 2): a queued turn says where it is in the queue and,
when no worker takes it, that it waits for one; a running turn says its stage; cancel
stops a queued turn at once and a running one at its next checkpoint, keeping what was
done; the failure code is said in words."""

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from ciq.models import Membership
from ciq.services import membership_add
from sessions.audit import session_audit
from sessions.models import EventType, RunStatus, Turn
from sessions.pipeline import turn_run
from sessions.run_state import WORKER_WAIT_SECONDS, run_state
from sessions.services import TurnEnded, session_create, turn_cancel, turn_retry
from sessions.writer import ExtractiveWriter

pytestmark = pytest.mark.django_db

QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"


def test_a_queued_turn_says_its_place_and_then_that_no_worker_took_it(demo_workspace, owner, member):
    first = session_create(workspace=demo_workspace, user=owner, question=QUESTION)  # never queued
    second = session_create(workspace=demo_workspace, user=member, question="Docks?")
    state = run_state(turn=second)
    assert state["status"] == "pending" and state["position"] == 2
    assert state["text"] == "Queued (position 2)." and not state["waiting_for_worker"]
    later = run_state(turn=first, now=first.created + dt.timedelta(seconds=WORKER_WAIT_SECONDS + 1))
    assert later["position"] == 1 and later["waiting_for_worker"]
    assert "Waiting for a worker" in later["text"] and later["elapsed_s"] >= WORKER_WAIT_SECONDS


def test_cancelling_a_queued_turn_ends_it_at_once_sealed_and_a_worker_skips_it(demo_workspace, owner):
    from sessions.tasks import turn_run_task

    turn = session_create(workspace=demo_workspace, user=owner, question=QUESTION)
    turn_cancel(turn=turn, user=owner)
    turn.session.refresh_from_db()
    assert turn.status == RunStatus.CANCELLED and turn.session.status == RunStatus.CANCELLED
    kinds = list(turn.session.events.order_by("seq").values_list("type", flat=True))
    assert kinds[-2:] == [EventType.ERROR, EventType.TURN_SEALED]
    assert session_audit(session=turn.session).intact
    assert turn_run_task.call(turn.pk) == "skipped"
    state = run_state(turn=turn)
    assert state["ended"] and state["error_code"] == "cancelled" and state["text"].startswith("Cancelled")
    with pytest.raises(TurnEnded):
        turn_cancel(turn=turn, user=owner)


class CancellingWriter(ExtractiveWriter):
    """The embedded Writer, with a member pressing Cancel after its first sentence."""

    def stream(self, request):
        for i, delta in enumerate(super().stream(request)):
            if i == 1:
                Turn.objects.filter(status=RunStatus.PROCESSING).update(cancel_requested_at=timezone.now())
            yield delta


def test_cancelling_a_running_turn_stops_it_at_the_next_checkpoint_keeping_its_events(
        demo_workspace, owner, monkeypatch):
    import sessions.pipeline as pipeline

    turn = session_create(workspace=demo_workspace, user=owner, question=QUESTION)
    original = pipeline.role_backend
    monkeypatch.setattr(pipeline, "role_backend",
                        lambda role: CancellingWriter() if role == "writer" else original(role))
    monkeypatch.setattr(pipeline, "CANCEL_POLL_SECONDS", 0)
    turn = turn_run(turn)
    assert turn.status == RunStatus.CANCELLED
    assert turn.error.startswith("Cancelled during write")
    events = list(turn.session.events.order_by("seq"))
    kinds = [e.type for e in events]
    assert EventType.RETRIEVAL_COMPLETED in kinds and EventType.CONTENT_CHUNK in kinds  # kept
    assert EventType.CLAIM_VERIFIED not in kinds and EventType.GENERATION_COMPLETE not in kinds
    error = next(e for e in events if e.type == EventType.ERROR)
    assert error.payload["code"] == "cancelled"
    assert kinds[-1] == EventType.TURN_SEALED and session_audit(session=turn.session).intact


def test_a_running_turn_shows_its_stage_and_cancelling_once_asked(demo_workspace, owner):
    turn = session_create(workspace=demo_workspace, user=owner, question=QUESTION)
    Turn.objects.filter(pk=turn.pk).update(status=RunStatus.PROCESSING)
    turn.refresh_from_db()
    assert run_state(turn=turn)["text"] == "Running: Analysing the question…"
    turn_cancel(turn=turn, user=owner)
    assert turn.status == RunStatus.PROCESSING and turn.cancel_requested_at is not None
    assert run_state(turn=turn)["text"].startswith("Cancelling")


def test_a_viewer_may_not_cancel_and_retry_asks_the_question_again(
        demo_workspace, owner, django_user_model):
    viewer = django_user_model.objects.create_user("reader", password="pw-reader-123")
    membership_add(user=viewer, workspace=demo_workspace, role=Membership.Role.VIEWER)
    turn = session_create(workspace=demo_workspace, user=owner, question=QUESTION)
    with pytest.raises(PermissionDenied):
        turn_cancel(turn=turn, user=viewer)
    turn_cancel(turn=turn, user=owner)
    retry = turn_retry(turn=turn, user=owner)
    assert retry.index == turn.index + 1 and retry.question == QUESTION
