"""Export records in the admin: listed, never added, changed or deleted."""

import pytest
from django.urls import reverse

from exports.services import session_export
from sessions.services import session_ask

pytestmark = pytest.mark.django_db


@pytest.fixture
def record(demo_workspace, owner):
    session = session_ask(
        workspace=demo_workspace, user=owner,
        question="What permits are needed to build or replace a dock in Rivergrove?",
    ).session
    return session_export(session=session, fmt="md", user=owner).record


def test_a_superuser_sees_records_read_only(admin_client, record):
    assert admin_client.get(reverse("admin:exports_exportrecord_changelist")).status_code == 200
    page = admin_client.get(reverse("admin:exports_exportrecord_change", args=[record.pk]))
    assert page.status_code == 200 and record.sha256 in page.content.decode()
    assert b'name="_save"' not in page.content
    assert admin_client.get(reverse("admin:exports_exportrecord_add")).status_code == 403
    assert admin_client.post(
        reverse("admin:exports_exportrecord_delete", args=[record.pk]), {"post": "yes"}
    ).status_code == 403
    record.refresh_from_db()
