"""Every model has a working admin list; the event log cannot be edited there."""

import pytest
from django.urls import reverse

from sessions.models import SessionEvent
from sessions.services import session_ask

pytestmark = pytest.mark.django_db

MODELS = [
    "ciq/workspace", "ciq/membership", "retrieval/document", "retrieval/chunk",
    "ciq_sessions/researchsession", "ciq_sessions/turn", "ciq_sessions/revision",
    "ciq_sessions/sessionevent", "verification/claim", "verification/ledgerentry",
]


@pytest.fixture
def staff_client(client, django_user_model, demo_workspace):
    session_ask(workspace=demo_workspace, question="What are the standards for a dock?")
    admin = django_user_model.objects.create_superuser("root", password="pw-root-123")
    client.force_login(admin)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_the_admin_lists_every_model(staff_client, model):
    app, name = model.split("/")
    response = staff_client.get(reverse(f"admin:{app}_{name}_changelist"))
    assert response.status_code == 200


def test_session_events_are_read_only_in_the_admin(staff_client):
    event = SessionEvent.objects.first()
    change = staff_client.get(reverse("admin:ciq_sessions_sessionevent_change", args=[event.pk]))
    assert change.status_code == 200
    assert b'name="_save"' not in change.content
    post = staff_client.post(
        reverse("admin:ciq_sessions_sessionevent_change", args=[event.pk]), {"type": "error"}
    )
    assert post.status_code == 403
    assert staff_client.get(reverse("admin:ciq_sessions_sessionevent_add")).status_code == 403


def test_an_anonymous_visitor_is_sent_to_the_admin_login(client):
    response = client.get(reverse("admin:ciq_sessions_researchsession_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
