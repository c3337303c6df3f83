"""The session page's run states (issue 14 item 2): a queued turn shows its place and a
Cancel button, its state URL answers only members, Cancel ends it, and an ended turn
says what went wrong in words with a Retry button."""

import pytest
from django.urls import reverse

from sessions.models import RunStatus, Turn
from sessions.recovery import turns_stalled_fail
from sessions.services import session_create

pytestmark = pytest.mark.django_db

QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"


@pytest.fixture
def queued(demo_workspace, owner) -> Turn:
    return session_create(workspace=demo_workspace, user=owner, question=QUESTION)  # never queued


def test_a_queued_turn_shows_its_place_and_a_cancel_button(client, owner, queued):
    client.force_login(owner)
    page = client.get(reverse("session", args=[queued.session_id])).content.decode()
    assert "Queued (position 1)." in page
    assert reverse("turn-cancel", args=[queued.session_id, queued.index]) in page
    assert reverse("turn-state", args=[queued.session_id, queued.index]) in page


def test_the_state_url_answers_members_and_404s_outsiders(client, owner, outsider, queued):
    url = reverse("turn-state", args=[queued.session_id, queued.index])
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert client.post(reverse("turn-cancel", args=[queued.session_id, queued.index])).status_code == 404
    client.force_login(owner)
    state = client.get(url).json()
    assert state["status"] == "pending" and state["position"] == 1 and not state["ended"]


def test_cancel_ends_the_turn_and_the_page_offers_retry(client, owner, queued):
    client.force_login(owner)
    response = client.post(reverse("turn-cancel", args=[queued.session_id, queued.index]))
    assert response.status_code == 302 and response.url.endswith(f"#turn-{queued.index}")
    queued.refresh_from_db()
    assert queued.status == RunStatus.CANCELLED
    page = client.get(reverse("session", args=[queued.session_id])).content.decode()
    assert "Cancelled: the run was stopped on request" in page and ">Cancelled<" in page
    assert reverse("turn-retry", args=[queued.session_id, queued.index]) in page
    assert "Queued (position" not in page
    response = client.post(reverse("turn-retry", args=[queued.session_id, queued.index]))
    assert response.status_code == 302
    assert queued.session.turns.filter(index=queued.index + 1, question=QUESTION).exists()


def test_a_stalled_run_says_so_in_words_with_retry(client, owner, queued):
    import datetime as dt

    from django.utils import timezone

    Turn.objects.filter(pk=queued.pk).update(status=RunStatus.PROCESSING)  # its worker died
    turns_stalled_fail(session=queued.session, now=timezone.now() + dt.timedelta(minutes=11))
    client.force_login(owner)
    page = client.get(reverse("session", args=[queued.session_id])).content.decode()
    assert "The run stopped without finishing: its worker stopped or lost it." in page
    assert reverse("turn-retry", args=[queued.session_id, queued.index]) in page


def test_the_api_reports_the_state_and_cancels_once(owner, outsider, queued):
    from tests.api_support import token_client

    base = f"/api/v1/sessions/{queued.session_id}/turns/{queued.index}"
    assert token_client(outsider).get(f"{base}/state/").status_code == 404
    api = token_client(owner)
    assert api.get(f"{base}/state/").json()["position"] == 1
    response = api.post(f"{base}/cancel/")
    assert response.status_code == 202 and response.json()["status"] == "cancelled"
    again = api.post(f"{base}/cancel/")
    assert again.status_code == 409 and "already ended" in again.json()["detail"]
