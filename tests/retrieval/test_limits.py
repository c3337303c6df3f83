"""Bounded, fair ingestion (issue 11, finding 4): hostile files are refused while
reading with a clear reason, time and memory are bounded outside the parsers, uploads
have per-workspace quotas, and ingestion runs on its own queue. No wall-clock asserts:
"bounded" is shown by what was never parsed or by the limit that stopped the work."""

from __future__ import annotations

import os
import signal
import zipfile
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from retrieval import sandbox
from retrieval.extract import ExtractionError, extract_text
from retrieval.models import Document
from retrieval.sandbox import extract_bounded
from retrieval.services import IngestStatus, document_ingest
from retrieval.uploads import documents_upload
from tests.conftest import SAMPLES_DIR

pytestmark = pytest.mark.django_db

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>')
RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>')
MINUTES_PDF = SAMPLES_DIR / "municipal/us-or-rivergrove/minutes/2018-08-13-Minutes.pdf"


def write_docx(path: Path, body: str, extra: dict[str, bytes] | None = None) -> Path:
    """A minimal DOCX package whose body is ``body`` (WordprocessingML inside w:body)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", RELS)
        archive.writestr("word/document.xml",
                         f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                         f'<w:document xmlns:w="{W}"><w:body>{body}</w:body></w:document>')
        for name, content in (extra or {}).items():
            archive.writestr(name, content)
    return path


def write_zip_bomb(path: Path, unpacked_mb: int) -> Path:
    """A DOCX with an extra part of ``unpacked_mb`` MB of zeros (a thousandfold
    compression), streamed so the test itself stays small."""
    write_docx(path, "<w:p><w:r><w:t>Section 1. Docks.</w:t></w:r></w:p>")
    block = b"\0" * (1024 * 1024)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("word/media/bomb.bin", "w", force_zip64=True) as part:
            for _ in range(unpacked_mb):
                part.write(block)
    return path


@pytest.fixture
def no_docx_parser(monkeypatch):
    """python-docx must never be reached for a file the checks refuse."""
    import docx

    def refuse(*args, **kwargs):
        raise AssertionError("python-docx was asked to parse a refused file")

    monkeypatch.setattr(docx, "Document", refuse)


def test_a_docx_with_30000_empty_paragraphs_is_refused_before_it_is_parsed(
        tmp_path, demo_workspace, no_docx_parser):
    path = write_docx(tmp_path / "empty-paragraphs.docx", "<w:p/>" * 30_000)
    assert path.stat().st_size < 50_000  # a small file: the attack run's was 41 KB
    result = document_ingest(workspace=demo_workspace, path=path)
    assert result.status == IngestStatus.FAILED
    assert result.error == ("DOCX has too many paragraphs: over the 20,000 limit "
                            "(INGEST_MAX_DOCX_PARAGRAPHS)")
    assert Document.objects.get(pk=result.document.pk).status == Document.Status.FAILED


def test_a_zip_bomb_is_refused_from_its_directory(tmp_path, settings, demo_workspace,
                                                 no_docx_parser):
    path = write_zip_bomb(tmp_path / "bomb.docx", unpacked_mb=300)
    assert path.stat().st_size < 2 * 1024 * 1024  # 300 MB packed into well under 2 MB
    result = document_ingest(workspace=demo_workspace, path=path)
    assert result.status == IngestStatus.FAILED
    assert result.error.startswith("DOCX unpacks to 300.0 MB, over the 200.0 MB limit "
                                   "(INGEST_MAX_UNPACKED_BYTES)")


def test_too_many_zip_entries_and_an_oversized_xml_part_are_refused(tmp_path, settings,
                                                                   no_docx_parser):
    many = write_docx(tmp_path / "many.docx", "<w:p/>",
                      {f"word/media/{i}.bin": b"x" for i in range(30)})
    settings.INGEST_MAX_ZIP_ENTRIES = 20
    with pytest.raises(ExtractionError, match=r"too many parts: 33 zip entries over the 20 "):
        extract_text(many)
    settings.INGEST_MAX_XML_BYTES = 1000
    big = write_docx(tmp_path / "big.docx", "<w:p><w:r><w:t>" + "x" * 5000 + "</w:t></w:r></w:p>")
    with pytest.raises(ExtractionError, match=r"DOCX part word/document.xml is .* \(INGEST_MAX_XML_BYTES\)"):
        extract_text(big)


def test_a_docx_with_a_lying_zip_header_is_corrupt_not_unpacked(tmp_path):
    path = write_docx(tmp_path / "liar.docx", "<w:p><w:r><w:t>" + "x" * 100_000 + "</w:t></w:r></w:p>")
    raw = bytearray(path.read_bytes())
    # Declare word/document.xml as 200 bytes in the central directory: zipfile stops there.
    central = raw.rindex(b"PK\x01\x02", 0, raw.rindex(b"word/document.xml"))
    raw[central + 24: central + 28] = (200).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    with pytest.raises(ExtractionError, match="corrupt or unreadable DOCX"):
        extract_text(path)


def test_a_pdf_over_the_page_limit_is_refused(settings, demo_workspace, tmp_path):
    settings.INGEST_MAX_PDF_PAGES = 1
    copy = tmp_path / "minutes.pdf"
    copy.write_bytes(MINUTES_PDF.read_bytes() + b"\n% copy\n")
    result = document_ingest(workspace=demo_workspace, path=copy)
    assert result.status == IngestStatus.FAILED
    assert result.error.startswith("too many pages: ") and "(INGEST_MAX_PDF_PAGES)" in result.error


def test_a_text_over_the_length_limit_is_refused(settings, tmp_path):
    settings.INGEST_MAX_TEXT_CHARS = 100
    path = tmp_path / "long.txt"
    path.write_text("Section 1. " + "word " * 100)
    with pytest.raises(ExtractionError, match=r"too much text: 511 characters over the 100 limit"):
        extract_text(path)


# --- time and memory, enforced outside the parser ----------------------------------------


def spin_forever(path):
    while True:
        pass


def allocate_without_end(path):
    hoard = []
    while True:
        hoard.append(bytearray(16 * 1024 * 1024))


def segfault(path):
    import ctypes

    ctypes.string_at(0)


def test_a_parser_that_never_ends_is_stopped_at_the_time_limit(settings, tmp_path):
    settings.INGEST_TIMEOUT_SECONDS = 1
    with pytest.raises(ExtractionError) as error:
        extract_bounded(tmp_path / "x.docx", work=spin_forever)
    assert error.value.reason == "took too long: over the 1 s limit (INGEST_TIMEOUT_SECONDS)"


def test_a_parser_that_eats_memory_is_stopped_at_the_memory_limit(settings, tmp_path):
    settings.INGEST_MAX_MEMORY_MB = 64
    with pytest.raises(ExtractionError) as error:
        extract_bounded(tmp_path / "x.docx", work=allocate_without_end)
    assert error.value.reason == "needs too much memory: over the 64 MB limit (INGEST_MAX_MEMORY_MB)"


def test_a_crashing_parser_fails_the_file_not_the_worker(tmp_path):
    with pytest.raises(ExtractionError, match=r"the parser crashed \(exit code -11\)"):
        extract_bounded(tmp_path / "x.docx", work=segfault)


KEPT: list[bytearray] = []


def keep_memory(path):
    KEPT.append(bytearray(40 * 1024 * 1024))  # touched, so the child maps it
    return os.getpid()


def by_name(path):
    """A parser whose behaviour the file's name picks; else the child's process id."""
    return {"spin": spin_forever, "hog": allocate_without_end, "crash": segfault,
            "keep": keep_memory}.get(path.stem, lambda _: os.getpid())(path)


def test_one_child_reads_file_after_file_and_a_failed_one_is_replaced(settings, tmp_path):
    settings.INGEST_TIMEOUT_SECONDS = 1
    settings.INGEST_MAX_MEMORY_MB = 64
    first = extract_bounded(tmp_path / "a.txt", work=by_name)
    assert extract_bounded(tmp_path / "b.txt", work=by_name) == first != os.getpid()
    for name, reason in (("spin", "took too long"), ("hog", "needs too much memory"),
                         ("crash", "the parser crashed")):
        with pytest.raises(ExtractionError, match=reason):
            extract_bounded(tmp_path / f"{name}.txt", work=by_name)
        # The next file gets a fresh child under fresh limits.
        after = extract_bounded(tmp_path / "c.txt", work=by_name)
        assert after not in (first, os.getpid())
        first = after


def test_no_child_reads_two_firms_files(tmp_path):
    first = extract_bounded(tmp_path / "a.txt", work=by_name, owner=1)
    assert extract_bounded(tmp_path / "b.txt", work=by_name, owner=1) == first
    assert extract_bounded(tmp_path / "c.txt", work=by_name, owner=2) not in (first, os.getpid())


def test_a_child_that_kept_the_memory_limit_from_earlier_files_is_replaced(settings, tmp_path):
    settings.INGEST_MAX_MEMORY_MB = 64
    first = extract_bounded(tmp_path / "keep.txt", work=by_name)
    # 80 MB kept over two files, each within its own 64 MB: the child answers, then leaves.
    assert extract_bounded(tmp_path / "keep.txt", work=by_name) == first
    assert extract_bounded(tmp_path / "a.txt", work=by_name) not in (first, os.getpid())


def test_a_stopping_worker_does_not_wait_for_its_idle_child(tmp_path):
    # db_worker handles SIGTERM by asking its loop to stop; the child inherits the
    # handler with the fork, and at exit the worker terminates and joins its children.
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        extract_bounded(tmp_path / "a.txt", work=by_name)
        child = sandbox._reader(by_name).process
        child.terminate()
        child.join(10)
        assert child.exitcode == -signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_child_that_left_while_idle_is_replaced(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "READER_IDLE_SECONDS", 0.1)
    first = extract_bounded(tmp_path / "a.txt", work=by_name)
    reader = sandbox._reader(by_name)
    reader.process.join(10)  # it leaves on its own, with exit code 0
    assert reader.process.exitcode == 0
    assert extract_bounded(tmp_path / "b.txt", work=by_name) not in (first, os.getpid())


def name_and_child(path):
    return path.name, os.getpid()


def test_the_next_file_is_read_while_this_one_is_written(tmp_path):
    _, child = extract_bounded(tmp_path / "a.txt", work=name_and_child, then=tmp_path / "b.txt")
    assert sandbox._reader(name_and_child).conn.poll(10)  # b's answer waits before it is asked for
    assert extract_bounded(tmp_path / "b.txt", work=name_and_child) == ("b.txt", child)
    # A file sent ahead and then not asked for (found unchanged after all) is dropped,
    # never given as the answer for another file.
    extract_bounded(tmp_path / "c.txt", work=name_and_child, then=tmp_path / "d.txt")
    assert extract_bounded(tmp_path / "e.txt", work=name_and_child) == ("e.txt", child)


def test_a_file_read_ahead_keeps_its_limits(settings, tmp_path):
    settings.INGEST_TIMEOUT_SECONDS = 1
    extract_bounded(tmp_path / "a.txt", work=by_name, then=tmp_path / "spin.txt")
    with pytest.raises(ExtractionError, match="took too long"):
        extract_bounded(tmp_path / "spin.txt", work=by_name)
    first = extract_bounded(tmp_path / "a.txt", work=by_name, then=tmp_path / "spin.txt")
    # Not asked for, it still ends at its limit: the child is replaced for the next file.
    assert extract_bounded(tmp_path / "b.txt", work=by_name) not in (first, os.getpid())


def test_a_batch_reads_ahead_only_the_files_it_will_read(demo_workspace, tmp_path):
    from retrieval.services import _ready_sizes, _to_be_read

    loaded = Document.objects.filter(workspace=demo_workspace).first()
    new = tmp_path / "new.txt"
    new.write_text("A new ordinance text.")
    ready = _ready_sizes(demo_workspace, [Path(loaded.source_path), new])
    assert not _to_be_read(Path(loaded.source_path), ready)  # unchanged: not read again
    assert _to_be_read(new, ready)


def test_the_ingest_reports_a_limit_on_the_file(settings, monkeypatch, demo_workspace, tmp_path):
    from retrieval import services

    settings.INGEST_TIMEOUT_SECONDS = 1
    monkeypatch.setattr(services, "extract_text", spin_forever)
    path = tmp_path / "slow.txt"
    path.write_text("Section 1. Docks.")
    result = document_ingest(workspace=demo_workspace, path=path)
    assert (result.status, result.error) == (
        IngestStatus.FAILED, "took too long: over the 1 s limit (INGEST_TIMEOUT_SECONDS)")


def test_a_good_docx_still_reads_through_the_sandbox(tmp_path):
    path = write_docx(tmp_path / "fine.docx",
                      "<w:p><w:r><w:t>Section 1. Docks need a permit.</w:t></w:r></w:p>")
    from retrieval.services import _extract_and_chunk

    extracted, spans = extract_bounded(path, work=_extract_and_chunk)
    assert extracted.text == "Section 1. Docks need a permit." and len(spans) == 1


# --- quotas and the queue -----------------------------------------------------------------


def test_uploads_over_the_workspace_document_quota_are_refused(settings, other_workspace):
    settings.WORKSPACE_MAX_DOCUMENTS = 2
    files = [SimpleUploadedFile(f"memo-{i}.txt", b"Section 1. Docks.") for i in range(3)]
    with pytest.raises(ValidationError) as error:
        documents_upload(workspace=other_workspace, uploads=files)
    assert error.value.messages == [
        "Workspace quota: this upload would make 3 documents in “Other firm”, over the 2 "
        "allowed (WORKSPACE_MAX_DOCUMENTS); delete documents or ask an administrator."]
    assert not Document.objects.filter(workspace=other_workspace).exists()


def test_uploads_over_the_workspace_byte_quota_are_refused(settings, other_workspace):
    settings.WORKSPACE_MAX_BYTES = 1024 * 1024
    files = [SimpleUploadedFile(f"memo-{i}.txt", b"x" * 400 * 1024) for i in range(3)]
    with pytest.raises(ValidationError) as error:
        documents_upload(workspace=other_workspace, uploads=files)
    assert "would make 1.2 MB of files in “Other firm”, over the 1.0 MB allowed " \
        "(WORKSPACE_MAX_BYTES)" in error.value.messages[0]


def test_a_reupload_counts_its_new_size_not_a_new_document(
        settings, other_workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        documents_upload(workspace=other_workspace,
                         uploads=[SimpleUploadedFile("memo.txt", b"Section 1. Docks.")])
    settings.WORKSPACE_MAX_DOCUMENTS = 1
    with django_capture_on_commit_callbacks(execute=True):
        [document] = documents_upload(
            workspace=other_workspace,
            uploads=[SimpleUploadedFile("memo.txt", b"Section 1. Docks need a permit.")])
    assert Document.objects.get(pk=document.pk).chunks.get().text.endswith("permit.")


def test_ingestion_has_its_own_queue_and_worker():
    from retrieval.tasks import document_ingest_task
    from sessions.tasks import turn_run_task

    assert document_ingest_task.queue_name == "ingest"
    assert turn_run_task.queue_name == "default"
    procfile = (Path(__file__).resolve().parents[2] / "Procfile").read_text().splitlines()
    workers = [line for line in procfile if "db_worker" in line]
    assert sorted(w.split("--queue-name ")[1].split()[0] for w in workers) == ["default", "ingest"]


@pytest.mark.django_db(transaction=True)
def test_a_question_runs_while_a_hostile_upload_waits_on_the_ingest_queue(
        settings, tmp_path, django_capture_on_commit_callbacks):
    """The attack run's scenario on the real database queue: firm B uploads a file, firm A
    asks; the question's worker (queue "default") answers and never takes the upload."""
    from django.core.management import call_command
    from django_tasks_db.models import DBTaskResult

    from ciq.services import workspace_get_or_create
    from retrieval.services import documents_ingest
    from sessions.models import RunStatus, Turn
    from sessions.services import session_start

    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend",
                                  "QUEUES": ["default", "ingest"]}}
    firm_a = workspace_get_or_create(name="Firm A")
    documents_ingest(workspace=firm_a, paths=[
        SAMPLES_DIR / "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"])
    firm_b = workspace_get_or_create(name="Firm B")
    hostile = write_docx(tmp_path / "empty.docx", "<w:p/>" * 30_000)
    documents_upload(workspace=firm_b, uploads=[
        SimpleUploadedFile("empty.docx", hostile.read_bytes())])
    turn = session_start(workspace=firm_a, question="What are the standards for a dock?")
    call_command("db_worker", "--queue-name", "default", "--batch", "--no-startup-delay",
                 "--no-reload")
    assert Turn.objects.get(pk=turn.pk).status == RunStatus.COMPLETED
    waiting = DBTaskResult.objects.get(queue_name="ingest")
    assert waiting.status == "READY"
    call_command("db_worker", "--queue-name", "ingest", "--batch", "--no-startup-delay",
                 "--no-reload")
    document = Document.objects.get(workspace=firm_b)
    assert document.status == Document.Status.FAILED
    assert document.error.startswith("DOCX has too many paragraphs")
