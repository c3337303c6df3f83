"""Versioned documents (issue 11, finding 5): a failed re-ingest never deletes the good
version, and a cited chunk of a replaced or deleted version stays readable from its
citation (the chunk page and the exports)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import strip_tags

from exports.services import session_export
from retrieval.models import Chunk, Document
from retrieval.services import IngestStatus, document_delete, document_ingest
from retrieval.uploads import documents_upload
from sessions.services import session_ask
from tests.conftest import SAMPLES_DIR
from tests.retrieval.test_extract import ONE_EMPTY_PAGE, build_pdf
from verification.citations import cited_ids

pytestmark = pytest.mark.django_db

MINUTES_PDF = SAMPLES_DIR / "municipal/us-or-rivergrove/minutes/2018-08-13-Minutes.pdf"


def encrypted_pdf() -> bytes:
    """A PDF with a standard security handler no empty password opens (as in test_extract)."""
    encrypt = ("<< /Filter /Standard /V 1 /R 2 /O <" + "ab" * 32 + "> /U <" + "cd" * 32
               + "> /P -44 >>")
    return build_pdf(ONE_EMPTY_PAGE + [encrypt],
                     "/Encrypt 4 0 R /ID [<" + "01" * 16 + "> <" + "01" * 16 + ">] ")


def upload(workspace, name: str, content: bytes, capture) -> Document:
    with capture(execute=True):
        [document] = documents_upload(workspace=workspace,
                                      uploads=[SimpleUploadedFile(name, content)])
    return Document.objects.get(pk=document.pk)


def snapshot(document: Document) -> tuple:
    return (document.status, document.sha256, document.file.name, document.title,
            list(document.chunks.order_by("ordinal").values_list("chunk_id", "text")))


def test_an_encrypted_reupload_leaves_the_ready_document_untouched(
        demo_workspace, django_capture_on_commit_callbacks):
    good = upload(demo_workspace, "minutes.pdf", MINUTES_PDF.read_bytes() + b"\n% copy\n",
                  django_capture_on_commit_callbacks)
    assert good.status == Document.Status.READY and good.chunks.exists(), good.error
    before = snapshot(good)

    again = upload(demo_workspace, "minutes.pdf", encrypted_pdf(),
                   django_capture_on_commit_callbacks)
    assert again.pk == good.pk
    assert snapshot(again) == before
    assert default_storage.exists(again.file.name)
    assert again.error.startswith("new version not loaded, the previous one is kept: "
                                  "encrypted PDF (password required)")
    assert str(settings.MEDIA_ROOT) not in again.error  # no server path shown


def test_a_failed_reingest_from_the_command_line_is_reported_and_keeps_the_good_version(
        demo_workspace, tmp_path):
    document = Document.objects.filter(workspace=demo_workspace, mime="application/pdf").first()
    before = snapshot(document)
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(encrypted_pdf())
    result = document_ingest(workspace=demo_workspace, path=locked,
                             source_path=document.source_path)
    assert result.status == IngestStatus.FAILED
    assert result.error == "encrypted PDF (password required)"
    document.refresh_from_db()
    assert snapshot(document) == before and default_storage.exists(document.file.name)


@pytest.mark.parametrize("content", [b"", b"   \n\t  ", b"%PDF-1.4 garbage"],
                         ids=["empty", "whitespace", "corrupt"])
def test_no_kind_of_bad_new_version_replaces_a_ready_one(demo_workspace, tmp_path, content):
    document = Document.objects.filter(workspace=demo_workspace, mime="application/pdf").first()
    before = snapshot(document)
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(content)
    assert document_ingest(workspace=demo_workspace, path=bad,
                           source_path=document.source_path).status == IngestStatus.FAILED
    document.refresh_from_db()
    assert snapshot(document) == before


def test_a_good_new_version_then_replaces_it_and_clears_the_message(
        demo_workspace, django_capture_on_commit_callbacks):
    upload(demo_workspace, "policy.md", b"# Policy\n\nDocks close at 9 pm every night.\n",
           django_capture_on_commit_callbacks)
    failed = upload(demo_workspace, "policy.md", b"  \n\n  ", django_capture_on_commit_callbacks)
    assert failed.status == Document.Status.READY and failed.error
    fresh = upload(demo_workspace, "policy.md", b"# Policy\n\nDocks close at 10 pm.\n",
                   django_capture_on_commit_callbacks)
    assert fresh.status == Document.Status.READY and fresh.error == ""
    assert "10 pm" in fresh.chunks.get().text


@pytest.fixture
def cited(demo_workspace, owner):
    """A turn citing a Rivergrove chunk, and that chunk's document."""
    turn = session_ask(workspace=demo_workspace, user=owner,
                       question="What permits are needed to build or replace a dock in Rivergrove?",
                       jurisdictions=["US-OR-Rivergrove"])
    # The first cited chunk; the first source when the answer cites none (the Judge and
    # the Writer are not what this test is about).
    chunk_id = ([*cited_ids(turn.answer_markdown), turn.sources[0]["chunk_id"]])[0]
    chunk = Chunk.objects.select_related("document").get(
        document__workspace=demo_workspace, chunk_id=chunk_id)
    return turn, chunk


def assert_citation_readable(client, turn, chunk_id: str, text: str) -> None:
    response = client.get(reverse("chunk", args=[turn.session_id, chunk_id]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-role="retired"' in html
    # The stored text, rendered from its Markdown: the same words in the same order.
    words = " ".join(strip_tags(html).split())
    assert " ".join(re.sub(r"[#*]", "", text[:200]).split()[:8]) in words
    data = json.loads(session_export(session=turn.session, fmt="json").content)
    [source] = [c for c in data["turns"][0]["sources"] if c["chunk_id"] == chunk_id]
    assert source["text"] == text
    for entry in (c for c in data["chunks_cited"] if c["chunk_id"] == chunk_id):
        assert entry["known"] and entry["text"] == text


def test_a_cited_chunk_of_a_replaced_version_stays_readable(client, owner, cited, tmp_path):
    turn, chunk = cited
    client.force_login(owner)
    changed = tmp_path / Path(chunk.document.source_path).name
    changed.write_bytes(Path(chunk.document.source_path).read_bytes() + b"\n\nAmended.\n")
    result = document_ingest(workspace=chunk.document.workspace, path=changed,
                             source_path=chunk.document.source_path)
    assert result.status == IngestStatus.UPDATED
    assert not Chunk.objects.filter(chunk_id=chunk.chunk_id).exists()
    assert_citation_readable(client, turn, chunk.chunk_id, chunk.text)


def test_a_cited_chunk_of_a_deleted_document_stays_readable(client, owner, cited):
    turn, chunk = cited
    client.force_login(owner)
    document_delete(document=chunk.document)
    assert_citation_readable(client, turn, chunk.chunk_id, chunk.text)
    assert client.get(reverse("chunk", args=[turn.session_id, "0" * 12])).status_code == 404
