"""What a failed ingest tells people (issue 11, low findings): an uploaded file is named
as it was uploaded, never by its staged server path; a file the operator ingested with
``manage.py ingest`` is named in the stored error (read by firm users) by its file name,
never by the operator's path; and a size refusal shows two numbers that differ whenever
the sizes do."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from retrieval.extract import ExtractionError, docx_check, oversize_reason, sizes_shown
from retrieval.models import Document
from retrieval.services import IngestStatus, document_ingest
from retrieval.uploads import documents_upload
from tests.api_support import token_client
from tests.retrieval.test_versions import encrypted_pdf

pytestmark = pytest.mark.django_db


def upload(workspace, name: str, content: bytes, capture) -> Document:
    with capture(execute=True):
        [document] = documents_upload(workspace=workspace,
                                      uploads=[SimpleUploadedFile(name, content)])
    return Document.objects.get(pk=document.pk)


def test_a_failed_upload_names_the_file_not_its_staged_path(
        demo_workspace, django_capture_on_commit_callbacks):
    document = upload(demo_workspace, "minutes.pdf", encrypted_pdf(),
                      django_capture_on_commit_callbacks)
    assert document.status == Document.Status.FAILED
    assert document.error == "encrypted PDF (password required) (minutes.pdf)"
    assert str(settings.MEDIA_ROOT) not in document.error and "/" not in document.error


def test_a_failed_api_upload_shows_the_file_name_only(
        owner, demo_workspace, django_capture_on_commit_callbacks):
    api = token_client(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/documents/", {
            "workspace": demo_workspace.pk,
            "files": [SimpleUploadedFile("locked.pdf", encrypted_pdf())],
        }, format="multipart")
    assert response.status_code == 201, response.content
    [created] = response.json()
    body = api.get(f"/api/v1/documents/{created['id']}/").json()
    assert body["status"] == "failed"
    assert body["error"] == "encrypted PDF (password required) (locked.pdf)"


def test_a_parser_message_quoting_the_staged_path_shows_the_name_instead(
        demo_workspace, django_capture_on_commit_callbacks, monkeypatch):
    def choke(path: Path, work=None, owner=None, then=None):
        raise OSError(f"[Errno 5] Input/output error: '{path}'")

    monkeypatch.setattr("retrieval.services.extract_bounded", choke)
    document = upload(demo_workspace, "notes.txt", b"Some notes.",
                      django_capture_on_commit_callbacks)
    assert document.status == Document.Status.FAILED
    assert document.error.startswith("could not be read (OSError: [Errno 5] Input/output "
                                     "error: 'notes.txt'")
    assert str(settings.MEDIA_ROOT) not in document.error
    assert "uploads" not in document.error


def test_the_command_line_shows_the_operator_the_path_and_firm_users_the_name(
        demo_workspace, tmp_path):
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(encrypted_pdf())
    result = document_ingest(workspace=demo_workspace, path=locked)
    assert result.status == IngestStatus.FAILED and result.path == str(locked)
    assert result.error == "encrypted PDF (password required)"
    # The stored error is what the firm's users read (pages, API): the name only.
    assert result.document.error == "encrypted PDF (password required) (locked.pdf)"


def stored_errors(workspace) -> list[str]:
    return list(Document.objects.filter(workspace=workspace, status=Document.Status.FAILED)
                .values_list("error", flat=True))


def test_the_ingest_command_stores_a_failure_under_the_file_name_only(
        other_workspace, tmp_path):
    folder = tmp_path / "srv" / "firm-intake"
    folder.mkdir(parents=True)
    (folder / "locked.pdf").write_bytes(encrypted_pdf())
    out = StringIO()
    call_command("ingest", str(folder / "locked.pdf"), "--workspace", other_workspace.name,
                 stdout=out)
    assert str(folder) in out.getvalue()  # the operator still sees the path typed
    [error] = stored_errors(other_workspace)
    assert error == "encrypted PDF (password required) (locked.pdf)"
    assert str(tmp_path) not in error and "/" not in error


def test_the_ingest_command_hides_the_path_a_parser_message_quotes(
        other_workspace, tmp_path, monkeypatch):
    def choke(path: Path, work=None, owner=None, then=None):
        raise OSError(f"[Errno 5] Input/output error: '{path.resolve()}'")

    monkeypatch.setattr("retrieval.services.extract_bounded", choke)
    (tmp_path / "notes.txt").write_text("Some notes.")
    call_command("ingest", str(tmp_path / "notes.txt"), "--workspace", other_workspace.name,
                 stdout=StringIO())
    [error] = stored_errors(other_workspace)
    assert error == "could not be read (OSError: [Errno 5] Input/output error: 'notes.txt') " \
                    "(notes.txt)"


def test_the_ingest_command_names_a_duplicate_by_its_file_name(other_workspace, tmp_path):
    first, second = tmp_path / "a" / "lease.txt", tmp_path / "b" / "lease-copy.txt"
    for path in (first, second):
        path.parent.mkdir()
        path.write_text("The tenant shall keep the dock in repair.")
    call_command("ingest", str(first), "--workspace", other_workspace.name, stdout=StringIO())
    # A path that failed once (no text) keeps its document, which then clashes with ``first``.
    second.write_text("\n")
    call_command("ingest", str(second), "--workspace", other_workspace.name, stdout=StringIO())
    second.write_text("The tenant shall keep the dock in repair.")
    call_command("ingest", str(second), "--workspace", other_workspace.name, stdout=StringIO())
    [error] = stored_errors(other_workspace)
    assert error == "same content as the already ingested lease.txt (lease-copy.txt)"
    assert str(tmp_path) not in error


# --- sizes --------------------------------------------------------------------------------

MIB = 1024 * 1024


@pytest.mark.parametrize(("size", "limit", "shown"), [
    (50 * MIB + 1, 50 * MIB, ("52,428,801 bytes", "52,428,800 bytes")),
    (50 * MIB + 20_000, 50 * MIB, ("50.02 MB", "50.00 MB")),
    (51 * MIB, 50 * MIB, ("51.0 MB", "50.0 MB")),
    (3 * 1024**3, 2 * 1024**3, ("3,072.0 MB", "2,048.0 MB")),
])
def test_sizes_shown_differ_when_the_sizes_differ(size, limit, shown):
    assert sizes_shown(size, limit) == shown


def test_a_file_one_byte_over_the_limit_shows_two_different_sizes(settings):
    settings.INGEST_MAX_FILE_BYTES = 50 * MIB
    assert oversize_reason(50 * MIB + 1) == (
        "file too large: 52,428,801 bytes over the 52,428,800 bytes limit (INGEST_MAX_FILE_BYTES)")


def test_a_docx_unpacking_one_byte_over_the_limit_shows_two_different_sizes(settings, tmp_path):
    import zipfile

    path = tmp_path / "big.docx"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"<w:document/>")
        archive.writestr("word/media/blob.bin", b"\0" * (MIB + 1 - len(b"<w:document/>")))
    settings.INGEST_MAX_UNPACKED_BYTES = MIB
    with pytest.raises(ExtractionError) as error:
        docx_check(path)
    assert error.value.reason.startswith(
        "DOCX unpacks to 1,048,577 bytes, over the 1,048,576 bytes limit")


def test_a_workspace_quota_one_byte_over_shows_two_different_sizes(other_workspace, settings):
    settings.WORKSPACE_MAX_BYTES = 10 * MIB
    with pytest.raises(ValidationError) as error:
        documents_upload(workspace=other_workspace,
                         uploads=[SimpleUploadedFile("a.txt", b"x" * (10 * MIB + 1))])
    assert "would make 10,485,761 bytes of files in “Other firm”, over the 10,485,760 bytes " \
           "allowed" in error.value.messages[0]
