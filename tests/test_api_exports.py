"""``GET /api/v1/sessions/<id>/export/?format=md|pdf|json|docx``."""

import json

import pytest

from exports.models import ExportRecord
from tests.api_support import session_run, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def session_id(owner, demo_workspace, django_capture_on_commit_callbacks):
    return session_run(token_client(owner), django_capture_on_commit_callbacks, demo_workspace)["id"]


@pytest.mark.parametrize(("fmt", "content_type", "magic"), [
    ("md", "text/markdown; charset=utf-8", b"#"),
    ("json", "application/json", b"{"),
    ("pdf", "application/pdf", b"%PDF"),
    ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", b"PK"),
])
def test_a_session_exports_in_every_format_and_is_recorded(member, session_id, fmt, content_type, magic):
    response = token_client(member).get(f"/api/v1/sessions/{session_id}/export/", {"format": fmt})
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="ciq-session-{session_id}.{fmt}"'
    assert response.content.startswith(magic)
    record = ExportRecord.objects.get(session_id=session_id)
    assert record.format == fmt and record.user == member and record.size_bytes == len(response.content)


def test_the_json_export_carries_the_ledger(owner, session_id):
    response = token_client(owner).get(f"/api/v1/sessions/{session_id}/export/?format=json")
    data = json.loads(response.content)
    assert data["turns"][0]["ledger"]


@pytest.mark.parametrize("query", ["?format=txt", ""])
def test_an_unknown_or_missing_format_is_a_field_error(owner, session_id, query):
    response = token_client(owner).get(f"/api/v1/sessions/{session_id}/export/{query}")
    assert response.status_code == 400 and list(response.json()) == ["format"]
    assert not ExportRecord.objects.exists()
