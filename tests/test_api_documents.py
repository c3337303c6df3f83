"""Documents through the API: list, detail with chunks, multipart upload, delete."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from retrieval.models import Document
from tests.api_support import token_client
from tests.conftest import SAMPLES_DIR

pytestmark = pytest.mark.django_db

RAY = SAMPLES_DIR / "county/us-mo-ray-county/ray_county_planning_and_zoning_regulations_2005.txt"


@pytest.fixture
def api(owner):
    return token_client(owner)


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def test_the_list_shows_the_workspace_documents_in_pages(api, demo_workspace, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        body = api.get("/api/v1/documents/?page_size=100").json()
    assert body["count"] == Document.objects.filter(workspace=demo_workspace).count() == 27
    first = body["results"][0]
    assert first["status"] == "ready" and first["chunk_count"] > 0 and first["workspace"] == demo_workspace.pk


def test_the_list_filters_by_level_lane_jurisdiction_and_date(api):
    federal = api.get("/api/v1/documents/?jurisdiction_level=federal").json()
    assert federal["count"] > 0 and {d["jurisdiction"] for d in federal["results"]} == {"US"}
    assert api.get("/api/v1/documents/?lane=local&jurisdiction=US").json()["count"] == 0
    assert api.get("/api/v1/documents/?updated_before=2000-01-01").json()["count"] == 0
    assert api.get("/api/v1/documents/?status=bogus").status_code == 400


def test_the_detail_has_the_chunks_in_order(api, demo_workspace, django_assert_max_num_queries):
    document = Document.objects.filter(workspace=demo_workspace, page_count__gt=1).first()
    with django_assert_max_num_queries(3):
        body = api.get(f"/api/v1/documents/{document.pk}/").json()
    assert body["title"] == document.title and body["chunk_count"] == len(body["chunks"])
    assert [c["ordinal"] for c in body["chunks"]] == list(range(len(body["chunks"])))
    chunk = body["chunks"][0]
    assert set(chunk) >= {"chunk_id", "ordinal", "pages", "heading", "text"}
    assert len(chunk["chunk_id"]) == 12 and chunk["pages"].startswith("p")


def test_an_upload_is_pending_then_ingested(api, demo_workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/documents/", {
            "workspace": demo_workspace.pk, "files": [upload("ray_copy.txt", RAY.read_bytes() + b"\nMore.")],
            "title": "Ray County zoning (copy)", "jurisdiction": "US-MO-Ray", "jurisdiction_level": "county",
            "citation_label": "Ray County Zoning Regs.", "last_updated": "2024-05-01",
        }, format="multipart")
    assert response.status_code == 201, response.content
    [created] = response.json()
    assert created["status"] == "pending" and created["lane"] == "local"
    document = api.get(f"/api/v1/documents/{created['id']}/").json()
    assert document["status"] == "ready", document["error"]
    assert document["title"] == "Ray County zoning (copy)" and document["last_updated"] == "2024-05-01"
    assert document["jurisdiction"] == "US-MO-Ray" and len(document["chunks"]) > 10


def test_several_files_upload_at_once(api, demo_workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/documents/", {"workspace": demo_workspace.pk, "files": [
            upload("a.md", b"# Dock permits\n\nA dock permit costs 50 dollars."),
            upload("b.txt", b"Tree removal needs a permit from the city."),
        ]}, format="multipart")
    assert response.status_code == 201
    assert [d["title"] for d in response.json()] == ["a", "b"]
    assert set(Document.objects.filter(pk__in=[d["id"] for d in response.json()])
               .values_list("status", flat=True)) == {"ready"}


def test_bad_files_are_refused_with_a_message_for_each(api, demo_workspace, settings):
    settings.INGEST_MAX_FILE_BYTES = 100
    response = api.post("/api/v1/documents/", {"workspace": demo_workspace.pk, "files": [
        upload("virus.exe", b"MZ"), upload("empty.txt", b""), upload("big.txt", b"x" * 500),
    ]}, format="multipart")
    assert response.status_code == 400
    messages = response.json()["files"]
    assert "virus.exe: unsupported file type “.exe”" in messages[0]
    assert messages[1] == "empty.txt: the file is empty."
    assert messages[2].startswith("big.txt: file too large")
    assert not Document.objects.filter(source_path__startswith="upload/").exists()


@pytest.mark.parametrize(("fields", "field"), [
    ({"files": []}, "files"),
    ({"jurisdiction_level": "galactic"}, "jurisdiction_level"),
    ({"jurisdiction": "not a code"}, "jurisdiction"),
    ({"last_updated": "last week"}, "last_updated"),
])
def test_bad_upload_fields_get_field_messages(api, demo_workspace, fields, field):
    body = {"workspace": demo_workspace.pk, "files": [upload("ok.txt", b"Some text.")], **fields}
    response = api.post("/api/v1/documents/", body, format="multipart")
    assert response.status_code == 400 and field in response.json()


def test_an_upload_into_another_firm_is_refused(api, other_workspace):
    body = {"workspace": other_workspace.pk, "files": [upload("ok.txt", b"Some text.")]}
    response = api.post("/api/v1/documents/", body, format="multipart")
    assert response.status_code == 400 and "workspace" in response.json()
    assert not other_workspace.documents.exists()


def test_deleting_a_document_removes_it_and_its_chunks(api, demo_workspace):
    document = Document.objects.filter(workspace=demo_workspace).first()
    assert api.delete(f"/api/v1/documents/{document.pk}/").status_code == 204
    assert not Document.objects.filter(pk=document.pk).exists()
    assert api.get(f"/api/v1/documents/{document.pk}/").status_code == 404


def test_an_outsider_cannot_see_or_delete_the_firm_documents(outsider, demo_workspace):
    stranger = token_client(outsider)
    document = Document.objects.filter(workspace=demo_workspace).first()
    assert stranger.get("/api/v1/documents/").json()["count"] == 0
    assert stranger.get(f"/api/v1/documents/{document.pk}/").status_code == 404
    assert stranger.delete(f"/api/v1/documents/{document.pk}/").status_code == 404
    assert Document.objects.filter(pk=document.pk).exists()


def test_too_many_files_in_one_request_is_a_json_400(api, demo_workspace, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 2
    files = [upload(f"{n}.txt", b"Some text.") for n in range(3)]
    response = api.post("/api/v1/documents/", {"workspace": demo_workspace.pk, "files": files},
                        format="multipart")
    assert response.status_code == 400
    assert "DATA_UPLOAD_MAX_NUMBER_FILES" in response.json()["detail"]
