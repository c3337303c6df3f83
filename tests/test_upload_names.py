"""Hostile upload names on the web and API upload paths (issue 11, Low): a 250-character
non-ASCII name is stored under a shortened name instead of failing with 500, and a
failed upload leaves no staged file behind."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from retrieval.models import Document
from tests.api_support import token_client

pytestmark = pytest.mark.django_db

LONG_NAME = "é" * 250 + ".txt"
TEXT = b"Dock permits. A dock permit costs 50 dollars in Rivergrove."


def staged_files() -> set[Path]:
    return set((Path(settings.MEDIA_ROOT) / "uploads").rglob("*"))


def run_ingest_and_check(document):
    document.refresh_from_db()
    assert document.status == "ready", document.error
    assert document.title.startswith("é" * 50)


def test_a_long_non_ascii_name_uploads_through_the_api(owner, demo_workspace,
                                                       django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client(owner).post("/api/v1/documents/", {
            "workspace": demo_workspace.pk, "files": [SimpleUploadedFile(LONG_NAME, TEXT)]},
            format="multipart")
    assert response.status_code == 201, response.content
    run_ingest_and_check(Document.objects.get(pk=response.json()[0]["id"]))


def test_a_long_non_ascii_name_uploads_through_the_web_page(owner, demo_workspace,
                                                            django_capture_on_commit_callbacks):
    browser = Client()
    browser.force_login(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post(reverse("documents", args=[demo_workspace.pk]),
                                {"files": [SimpleUploadedFile(LONG_NAME, TEXT)],
                                 "jurisdiction_level": "private"})
    assert response.status_code == 302
    run_ingest_and_check(Document.objects.filter(workspace=demo_workspace).latest("pk"))


def test_the_staged_name_fits_the_file_system_and_keeps_its_suffix():
    from retrieval.uploads import MAX_NAME_BYTES, upload_file_name

    name = upload_file_name("/tmp/../" + LONG_NAME)
    assert name.endswith(".txt") and len(name.encode("utf-8")) <= MAX_NAME_BYTES
    assert upload_file_name("plain.md") == "plain.md"


def test_a_failed_upload_leaves_no_staged_file(owner, demo_workspace, monkeypatch):
    before = staged_files()

    def broken(*args, **kwargs):
        raise RuntimeError("queue down")

    monkeypatch.setattr("retrieval.uploads._enqueue_on_commit", broken)
    api = token_client(owner)
    api.raise_request_exception = False
    response = api.post("/api/v1/documents/", {
        "workspace": demo_workspace.pk, "files": [SimpleUploadedFile("a.txt", TEXT)]}, format="multipart")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert staged_files() == before
    assert not Document.objects.filter(workspace=demo_workspace, source_path="upload/a.txt").exists()
