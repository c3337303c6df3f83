"""Ingestion: the command, idempotence, replacement, failures, metadata, transactions."""

import datetime as dt
import io
import re
import shutil
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from ciq.services import workspace_get_or_create
from retrieval import services
from retrieval.chunking import chunk_id_for, chunk_text, span_sections
from retrieval.extract import extract_text
from retrieval.index import lexical_index
from retrieval.management.commands import ingest as ingest_command
from retrieval.manifest import DocumentMetadata, ManifestError, default_metadata, read_manifest
from retrieval.models import Chunk, Document
from retrieval.services import collect_files, document_delete, document_ingest, documents_ingest
from tests.conftest import SAMPLES_MANIFEST
from tests.retrieval.fts_support import fts_match, fts_rows

pytestmark = pytest.mark.django_db

ORS_156 = "state/us-or/ors_chapter_156.html"
CFR_1006 = "federal/us-cfr-12/12cfr1006_fair_debt_collection_practices_act.txt"
MINUTES_PDF = "municipal/us-or-rivergrove/minutes/2018-08-13-Minutes.pdf"
PARK_HOURS = "municipal/us-or-rivergrove/ordinances/2011-Ord-80-2011-Park-Hours.md"




def cfr_section(samples_dir: Path, heading: str) -> list[str]:
    """The body lines of one section of the CFR sample, up to the next blank line."""
    lines = (samples_dir / CFR_1006).read_text(encoding="utf-8").split("\n")
    start = lines.index(heading) + 1
    return lines[start : lines.index("", start)]


def build_docx(path: Path, heading: str, paragraphs: list[str]) -> Path:
    import docx

    document = docx.Document()
    document.add_heading(heading, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    document.save(path)
    return path


def break_docx_body(path: Path) -> Path:
    """Rewrite a DOCX so that it is still a valid package (zip, content types,
    relationships) but its main part is well-formed XML of the wrong kind: python-docx
    opens it and then fails with an AttributeError, not one of its own errors."""
    with zipfile.ZipFile(path) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    parts["word/document.xml"] = b'<?xml version="1.0"?><foo xmlns="urn:example:not-word"/>'
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as target:
        for name, data in parts.items():
            target.writestr(name, data)
    path.write_bytes(buffer.getvalue())
    return path


def document_at(workspace, samples_dir: Path, relative: str) -> Document:
    return Document.objects.get(
        workspace=workspace, source_path=str((samples_dir / relative).resolve())
    )


def test_the_samples_are_ready_in_the_demo_workspace_and_indexed(demo_workspace):
    documents = Document.objects.filter(workspace=demo_workspace)

    assert documents.count() == 27
    assert set(documents.values_list("status", flat=True)) == {Document.Status.READY}
    assert Chunk.objects.filter(document__workspace=demo_workspace).count() > 500
    assert fts_rows() == Chunk.objects.count()


def test_the_command_ingests_the_samples_into_a_new_workspace(samples_dir):
    out = StringIO()

    call_command(
        "ingest",
        str(samples_dir),
        "--workspace",
        "Fresh firm",
        "--manifest",
        str(SAMPLES_MANIFEST),
        stdout=out,
    )

    fresh = Document.objects.filter(workspace__name="Fresh firm")
    assert fresh.count() == 27
    assert set(fresh.values_list("status", flat=True)) == {Document.Status.READY}
    assert "27 created, 0 updated, 0 unchanged, 0 failed" in out.getvalue()
    assert not fresh.filter(title__in=["SOURCES", "sources", "manifest"]).exists()
    assert fts_rows() == Chunk.objects.count()


def test_reingesting_the_same_files_changes_nothing(demo_workspace, samples_dir):
    before = sorted(
        Chunk.objects.filter(document__workspace=demo_workspace).values_list(
            "document_id", "chunk_id", "id"
        )
    )

    summary = documents_ingest(
        workspace=demo_workspace, paths=[samples_dir], manifest=SAMPLES_MANIFEST
    )

    assert (summary.documents, summary.unchanged, summary.created, summary.updated) == (
        27,
        27,
        0,
        0,
    )
    assert summary.chunks == len(before)
    after = sorted(
        Chunk.objects.filter(document__workspace=demo_workspace).values_list(
            "document_id", "chunk_id", "id"
        )
    )
    assert after == before
    assert Document.objects.filter(workspace=demo_workspace).count() == 27


def test_chunk_ids_are_the_same_in_another_workspace(demo_workspace, other_workspace, samples_dir):
    demo = document_at(demo_workspace, samples_dir, CFR_1006)

    result = document_ingest(workspace=other_workspace, path=samples_dir / CFR_1006)

    assert result.status == "created"
    assert list(result.document.chunks.values_list("chunk_id", flat=True)) == list(
        demo.chunks.values_list("chunk_id", flat=True)
    )


def test_the_same_bytes_under_another_name_are_not_duplicated(
    demo_workspace, samples_dir, tmp_path
):
    copy = tmp_path / "copy-of-park-hours.md"
    shutil.copyfile(samples_dir / PARK_HOURS, copy)

    result = document_ingest(workspace=demo_workspace, path=copy)

    assert result.status == "unchanged"
    assert result.document == document_at(demo_workspace, samples_dir, PARK_HOURS)
    assert Document.objects.filter(workspace=demo_workspace).count() == 27


def test_a_changed_file_replaces_its_chunks_and_keeps_the_index_in_step(
    other_workspace, samples_dir, tmp_path
):
    path = tmp_path / "ordinance.md"
    shutil.copyfile(samples_dir / PARK_HOURS, path)
    first = document_ingest(workspace=other_workspace, path=path)
    old_chunk_pks = set(first.document.chunks.values_list("pk", flat=True))
    old_sha = first.document.sha256

    path.write_text(
        path.read_text(encoding="utf-8")
        + "\n\n## Section 9. Zorblax\nZorblax launching is allowed from dawn to dusk.\n",
        encoding="utf-8",
    )
    second = document_ingest(workspace=other_workspace, path=path)

    assert (first.status, second.status) == ("created", "updated")
    assert second.document.pk == first.document.pk
    assert Document.objects.filter(workspace=other_workspace).count() == 1
    assert not Chunk.objects.filter(pk__in=old_chunk_pks).exists()
    document = Document.objects.get(pk=first.document.pk)
    assert document.sha256 != old_sha
    assert document.chunks.count() == second.chunks
    assert fts_rows() == Chunk.objects.count()
    assert fts_match("zorblax") == 1


def test_a_broken_file_fails_with_its_reason_while_the_others_ingest(
    other_workspace, samples_dir, tmp_path
):
    shutil.copyfile(samples_dir / CFR_1006, tmp_path / "good.txt")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really")
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "notes.csv").write_text("ignored,because,unsupported")
    seen = []

    summary = documents_ingest(workspace=other_workspace, paths=[tmp_path], progress=seen.append)

    assert (summary.documents, summary.created, summary.failed) == (3, 1, 2)
    assert [r.path for r in seen] == [
        str(tmp_path / n) for n in ("broken.pdf", "empty.md", "good.txt")
    ]
    reasons = {Path(r.path).name: r.error for r in summary.failures}
    assert "corrupt or unreadable PDF" in reasons["broken.pdf"]
    assert "empty file" in reasons["empty.md"]
    broken = Document.objects.get(workspace=other_workspace, title="broken")
    assert broken.status == Document.Status.FAILED
    assert (
        "corrupt or unreadable PDF" in broken.error and broken.error.endswith("(broken.pdf)")
    )
    assert str(tmp_path) not in broken.error  # firm users read it: the name, no server path
    assert not broken.chunks.exists()
    good = Document.objects.get(workspace=other_workspace, title="good")
    assert good.status == Document.Status.READY and good.chunks.exists()


def test_a_fixed_file_turns_its_failed_document_ready(other_workspace, samples_dir, tmp_path):
    path = tmp_path / "later.txt"
    path.write_text("   \n")
    failed = document_ingest(workspace=other_workspace, path=path)
    shutil.copyfile(samples_dir / CFR_1006, path)

    fixed = document_ingest(workspace=other_workspace, path=path)

    assert (failed.status, fixed.status) == ("failed", "updated")
    document = Document.objects.get(workspace=other_workspace)
    assert (document.status, document.error) == (Document.Status.READY, "")
    assert document.chunks.count() == fixed.chunks > 0


def test_manifest_metadata_is_applied_to_documents_and_chunks(demo_workspace, samples_dir):
    ors = document_at(demo_workspace, samples_dir, ORS_156)
    cfr = document_at(demo_workspace, samples_dir, CFR_1006)
    minutes = document_at(demo_workspace, samples_dir, MINUTES_PDF)

    title = "ORS Chapter 156 — Proceedings and Judgment in Criminal Actions (2021 Edition)"
    assert ors.title == title
    assert (ors.jurisdiction, ors.jurisdiction_level, ors.lane) == ("US-OR", "state", "state")
    assert (ors.source_type, ors.citation_label, ors.last_updated) == (
        "statute",
        "ORS ch. 156 (2021 ed.)",
        None,
    )
    assert (cfr.jurisdiction, cfr.jurisdiction_level, cfr.lane) == ("US", "federal", "state")
    assert cfr.last_updated == dt.date(2011, 12, 30)
    assert (minutes.jurisdiction_level, minutes.lane, minutes.page_count) == (
        "municipal",
        "local",
        9,
    )
    assert minutes.last_updated == dt.date(2018, 8, 13)
    for document in (ors, cfr, minutes):
        assert set(document.chunks.values_list("jurisdiction", "lane")) == {
            (document.jurisdiction, document.lane)
        }


def test_documents_record_file_facts_and_keep_a_copy(demo_workspace, samples_dir):
    minutes = document_at(demo_workspace, samples_dir, MINUTES_PDF)
    ors = document_at(demo_workspace, samples_dir, ORS_156)

    assert (minutes.mime, minutes.size_bytes) == ("application/pdf", 175420)
    assert len(minutes.sha256) == 64
    with minutes.file.open("rb") as stored:
        assert stored.read() == (samples_dir / MINUTES_PDF).read_bytes()
    assert (ors.mime, ors.page_count) == ("text/html", None)
    chunks = list(minutes.chunks.all())
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert chunks[0].page_start == 1 and chunks[-1].page_end == 9
    assert all(c.token_count == len(c.text.split()) for c in chunks)
    assert all(len(c.chunk_id) == 12 for c in chunks)


def test_a_metadata_change_alone_updates_the_document_without_rechunking(
    other_workspace, samples_dir
):
    path = samples_dir / PARK_HOURS
    created = document_ingest(workspace=other_workspace, path=path)
    chunk_pks = list(created.document.chunks.values_list("pk", flat=True))
    metadata = DocumentMetadata(
        title="Park hours",
        jurisdiction="US-OR",
        jurisdiction_level="state",
        source_type="ordinance",
        citation_label="Ord. 80",
        last_updated=dt.date(2011, 5, 1),
    )

    result = document_ingest(workspace=other_workspace, path=path, metadata=metadata)

    assert (created.status, result.status) == ("created", "updated")
    document = Document.objects.get(pk=created.document.pk)
    assert (document.title, document.lane, document.citation_label) == (
        "Park hours",
        "state",
        "Ord. 80",
    )
    assert list(document.chunks.values_list("pk", flat=True)) == chunk_pks
    assert set(document.chunks.values_list("lane", flat=True)) == {"state"}
    assert (
        document_ingest(workspace=other_workspace, path=path, metadata=metadata).status
        == "unchanged"
    )
    assert document_ingest(workspace=other_workspace, path=path).status == "unchanged"


def test_a_failure_while_writing_leaves_no_chunks_behind(other_workspace, samples_dir, monkeypatch):
    original = services.chunks_insert

    def write_some_then_fail(chunks):
        original(chunks[:2])
        raise RuntimeError("disk full")

    monkeypatch.setattr(services, "chunks_insert", write_some_then_fail)

    result = document_ingest(workspace=other_workspace, path=samples_dir / CFR_1006)

    assert result.status == "failed"
    assert "disk full" in result.error
    document = Document.objects.get(workspace=other_workspace)
    assert document.status == Document.Status.FAILED and document.file.name == ""
    assert not Chunk.objects.filter(document__workspace=other_workspace).exists()
    assert fts_rows() == Chunk.objects.count()


def test_a_batch_asks_the_database_a_bounded_number_of_questions_per_file(
    other_workspace, samples_dir, django_assert_max_num_queries
):
    # Per file: one lookup (the document at its path or with its bytes), the savepoint and
    # its release, the document, its chunks and their lexical rows (on SQLite the table
    # made if missing, two statements; on PostgreSQL the write lock and the term counts,
    # three); for the batch, one lookup of the ready documents to read ahead. It was 11
    # a file on SQLite: the two lookups, the read-ahead check and the workspace
    # looked up again by full_clean were one query each.
    files = [samples_dir / name for name in (CFR_1006, ORS_156, MINUTES_PDF, PARK_HOURS)]
    per_file = 9 if connection.vendor == "postgresql" else 8

    with django_assert_max_num_queries(per_file * len(files) + 1):
        summary = documents_ingest(workspace=other_workspace, paths=files)

    assert (summary.created, summary.failed) == (len(files), 0)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's query planner")
def test_a_file_is_looked_up_by_its_path_and_bytes_not_by_walking_its_workspace(
    demo_workspace, samples_dir
):
    # The lookup of a ready document with a file's bytes went through the workspace's
    # index, reading every document of the workspace for each file: quadratic in a batch
    # (1,720 files: 0.53 s of lookups, 0.21 s now). Each half now reads its own index.
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert document_ingest(workspace=demo_workspace, path=samples_dir / CFR_1006).status == "unchanged"

    lookups = [q["sql"] for q in queries.captured_queries
               if q["sql"].startswith("SELECT") and 'FROM "retrieval_document"' in q["sql"]]
    assert lookups
    with connection.cursor() as cursor:
        for sql in lookups:
            cursor.execute("EXPLAIN QUERY PLAN " + sql)
            searches = [row[-1] for row in cursor.fetchall() if "retrieval_document" in row[-1]]
            assert searches and all("(workspace_id=? AND " in s for s in searches), (sql, searches)


def test_chunks_are_stored_as_the_chunker_cut_them(other_workspace, samples_dir):
    # Chunk rows are written by one INSERT of many rows (services.chunks_insert), not the
    # ORM's bulk_create: each column, the JSON ones too, reads back as the span said.
    path = samples_dir / MINUTES_PDF
    document = document_ingest(workspace=other_workspace, path=path).document
    extracted = extract_text(path)
    spans = chunk_text(extracted.text, extracted.page_starts)

    rows = list(Chunk.objects.filter(document=document).order_by("pk"))

    assert [c.ordinal for c in rows] == list(range(len(spans)))
    for chunk, span in zip(rows, spans, strict=True):
        assert (chunk.text, chunk.char_start, chunk.char_end) == (
            extracted.text[span.char_start : span.char_end], span.char_start, span.char_end)
        assert (chunk.page_start, chunk.page_end, chunk.token_count) == (
            span.page_start, span.page_end, span.words)
        assert (chunk.heading, chunk.heading_path, chunk.sections) == (
            span.heading, list(span.heading_path), span_sections(span))
        assert chunk.chunk_id == chunk_id_for(document.sha256, span.char_start, span.char_end)
        assert (chunk.jurisdiction, chunk.lane) == (document.jurisdiction, document.lane)
    assert any(c.sections for c in rows) and any(c.page_end != c.page_start for c in rows)
    assert fts_match("meeting") > 0


def test_deleting_a_document_removes_its_chunks_from_the_index(other_workspace, samples_dir):
    document = document_ingest(workspace=other_workspace, path=samples_dir / CFR_1006).document
    assert fts_match("collection") > 0 and Chunk.objects.filter(document=document).exists()
    rows_before = fts_rows()

    document_delete(document=document)

    assert not Document.objects.filter(pk=document.pk).exists()
    assert not Chunk.objects.filter(document_id=document.pk).exists()
    assert fts_rows() == Chunk.objects.count() < rows_before


def test_the_command_reports_failures_without_failing(other_workspace, tmp_path):
    (tmp_path / "notes.xyz").write_text("unsupported")
    (tmp_path / "memo.txt").write_text(
        "Section 1. Scope.\nThis memo covers the dock permit fees.\n"
    )
    out = StringIO()

    call_command(
        "ingest",
        str(tmp_path / "notes.xyz"),
        str(tmp_path),
        "--workspace",
        "Other firm",
        stdout=out,
    )

    output = out.getvalue()
    assert f"FAILED {tmp_path / 'notes.xyz'}: unsupported file type .xyz" in output
    assert "2 document(s)" in output and "1 created" in output and "1 failed" in output


def test_the_command_refuses_a_missing_path(tmp_path):
    with pytest.raises(CommandError, match="No such file or folder"):
        call_command(
            "ingest", str(tmp_path / "nowhere"), "--workspace", "Other firm", stdout=StringIO()
        )


def test_the_command_refuses_a_bad_manifest(tmp_path):
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("path,title,jurisdiction,jurisdiction_level\na.txt,A,US,galactic\n")
    (tmp_path / "a.txt").write_text("Some text.")

    with pytest.raises(CommandError, match="line 2: unknown jurisdiction_level 'galactic'"):
        call_command(
            "ingest",
            str(tmp_path),
            "--workspace",
            "Other firm",
            "--manifest",
            str(manifest),
            stdout=StringIO(),
        )
    assert not Document.objects.filter(workspace__name="Other firm").exists()


def test_read_manifest_keys_rows_by_relative_path_and_parses_dates():
    entries = read_manifest(SAMPLES_MANIFEST)

    assert len(entries) == 27
    cfr = entries[CFR_1006]
    assert (cfr.jurisdiction, cfr.jurisdiction_level, cfr.source_type) == (
        "US",
        "federal",
        "regulation",
    )
    assert cfr.last_updated == dt.date(2011, 12, 30)
    assert entries[ORS_156].last_updated is None


def test_read_manifest_names_the_line_of_a_bad_date(tmp_path):
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(
        "path,title,jurisdiction,jurisdiction_level,last_updated\n"
        "a.txt,A,US,federal,2020-01-01\n"
        "b.txt,B,US,federal,31/12/2020\n"
    )

    with pytest.raises(ManifestError, match=r"line 3: bad last_updated '31/12/2020'"):
        read_manifest(manifest)


def test_default_metadata_is_private_and_titled_from_the_file_name():
    metadata = default_metadata(Path("/tmp/Master_services-agreement 2024.pdf"))

    assert metadata == DocumentMetadata(title="Master services agreement 2024")
    assert (metadata.jurisdiction, metadata.jurisdiction_level, metadata.source_type) == (
        "private",
        "private",
        "document",
    )


def test_workspace_for_the_command_is_created_when_absent(samples_dir):
    call_command(
        "ingest", str(samples_dir / PARK_HOURS), "--workspace", "Brand new", stdout=StringIO()
    )

    workspace = workspace_get_or_create(name="Brand new")
    assert Document.objects.get(workspace=workspace).title == "2011 Ord 80 2011 Park Hours"


def test_a_file_a_parser_chokes_on_fails_with_its_reason_while_the_others_ingest(
    other_workspace, samples_dir, tmp_path
):
    heading = "§ 1006.3 Supporting documents."
    build_docx(tmp_path / "a-good.docx", heading, cfr_section(samples_dir, heading))
    broken = break_docx_body(
        build_docx(tmp_path / "b-broken.docx", heading, cfr_section(samples_dir, heading))
    )
    shutil.copyfile(samples_dir / PARK_HOURS, tmp_path / "c-good.md")

    summary = documents_ingest(workspace=other_workspace, paths=[tmp_path])

    assert (summary.documents, summary.created, summary.failed) == (3, 2, 1)
    (failure,) = summary.failures
    assert failure.path == str(broken)
    assert failure.error.startswith("could not be read (AttributeError: ")
    document = Document.objects.get(workspace=other_workspace, title="b broken")
    assert document.status == Document.Status.FAILED and not document.chunks.exists()
    assert document.error.endswith(f"({broken.name})") and str(broken) not in document.error
    ready = Document.objects.filter(workspace=other_workspace, status=Document.Status.READY)
    assert sorted(ready.values_list("title", flat=True)) == ["a good", "c good"]
    assert all(d.chunks.exists() for d in ready)


def test_an_unexpected_error_text_is_trimmed_in_the_reason(
    other_workspace, samples_dir, monkeypatch
):
    def explode(path):
        raise ValueError("bad byte " * 200)

    monkeypatch.setattr(services, "extract_text", explode)

    result = document_ingest(workspace=other_workspace, path=samples_dir / CFR_1006)

    assert result.status == "failed"
    assert result.error.startswith("could not be read (ValueError: bad byte bad byte")
    assert len(result.error) <= 300 and result.error.endswith("…")


def test_an_oversize_file_is_refused_before_it_is_read(
    other_workspace, tmp_path, settings, monkeypatch
):
    settings.INGEST_MAX_FILE_BYTES = 10
    path = tmp_path / "big.txt"
    path.write_text("Section 1. " + "x" * 100)
    reads = []
    monkeypatch.setattr(services, "_file_digest", lambda p: reads.append(("digest", p)))
    monkeypatch.setattr(services, "extract_text", lambda p: reads.append(("extract", p)))

    result = document_ingest(workspace=other_workspace, path=path)

    assert reads == []
    assert result.status == "failed"
    assert "file too large" in result.error and "INGEST_MAX_FILE_BYTES" in result.error
    document = Document.objects.get(workspace=other_workspace)
    assert (document.status, document.size_bytes, document.sha256) == (
        Document.Status.FAILED,
        111,
        "",
    )
    assert document.error.endswith(f"({path.name})") and str(path) not in document.error


def test_unsupported_files_in_folders_are_listed_as_skipped(other_workspace, tmp_path):
    (tmp_path / "memo.txt").write_text("Section 1. Scope.\nDock permit fees.\n")
    (tmp_path / "a.xyz").write_text("unsupported")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.bin").write_bytes(b"\x00\x01")
    (tmp_path / "named.xyz").write_text("named directly, so tried and failed")
    # Not counted: hidden files and folders, and the corpus notes.
    (tmp_path / ".hidden.xyz").write_text("hidden")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config.bin").write_text("hidden")
    (tmp_path / "manifest.csv").write_text("path,title\n")
    (tmp_path / "sources.csv").write_text("path,url\n")
    (tmp_path / "README.md").write_text("# Notes\n")

    summary = documents_ingest(
        workspace=other_workspace, paths=[tmp_path / "named.xyz", tmp_path]
    )

    assert summary.skipped == [str(tmp_path / "a.xyz"), str(tmp_path / "sub" / "b.bin")]
    assert (summary.documents, summary.created, summary.failed) == (2, 1, 1)
    assert summary.failures[0].path == str(tmp_path / "named.xyz")
    # Throughput counts the files tried, failed ones included, not the skipped ones.
    tried = (tmp_path / "memo.txt", tmp_path / "named.xyz")
    assert summary.bytes == sum(f.stat().st_size for f in tried)
    assert summary.mb_per_second > 0


def test_the_command_names_the_skipped_files_on_one_line(other_workspace, tmp_path):
    (tmp_path / "memo.txt").write_text("Section 1. Scope.\nDock permit fees.\n")
    for name in ("a.xyz", "b.bin", "c.json", "d.csv", "e.jsonl", "f.rtf"):
        (tmp_path / name).write_text("unsupported")
    out = StringIO()

    call_command("ingest", str(tmp_path), "--workspace", "Other firm", stdout=out)

    skipped = "Skipped 6 file(s) with unsupported types: a.xyz, b.bin, c.json, d.csv, e.jsonl…"
    assert skipped in out.getvalue().splitlines()
    assert "1 document(s)" in out.getvalue() and "1 created" in out.getvalue()
    assert re.search(r"0\.0 MB read, \d+\.\d\d MB/s\.", out.getvalue())


def test_the_command_prints_no_skipped_line_when_nothing_was_skipped(samples_dir):
    out = StringIO()

    call_command(
        "ingest", str(samples_dir / PARK_HOURS), "--workspace", "Brand new", stdout=out
    )

    assert "Skipped" not in out.getvalue()


def test_the_command_walks_the_folders_once(other_workspace, tmp_path, monkeypatch):
    (tmp_path / "memo.txt").write_text("Section 1. Scope.\nDock permit fees.\n")
    calls = []

    def counting(paths):
        calls.append(list(paths))
        return collect_files(paths)

    monkeypatch.setattr(services, "collect_files", counting)
    monkeypatch.setattr(ingest_command, "collect_files", counting)

    call_command("ingest", str(tmp_path), "--workspace", "Other firm", stdout=StringIO())

    assert calls == [[tmp_path]]
    assert Document.objects.filter(workspace=other_workspace).count() == 1


def test_a_docx_ingested_by_the_command_is_found_by_the_lexical_index(samples_dir, tmp_path):
    heading = "§ 1006.3 Supporting documents."
    body = cfr_section(samples_dir, heading)
    path = build_docx(tmp_path / "Supporting documents.docx", heading, body)

    call_command("ingest", str(path), "--workspace", "Docx firm", stdout=StringIO())

    workspace = workspace_get_or_create(name="Docx firm")
    document = Document.objects.get(workspace=workspace)
    assert (document.status, document.mime) == (
        Document.Status.READY,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    )
    hits = lexical_index().search("comparison", workspace_id=workspace.pk, k=5)
    assert hits
    chunk = Chunk.objects.get(pk=hits[0].chunk_pk)
    assert chunk.document == document
    assert "A comparison of each provision of sections 803 through 812" in chunk.text
    assert chunk.heading == heading


def test_chunks_insert_refuses_chunks_whose_keys_it_could_not_tell_apart(other_workspace, samples_dir):
    from retrieval import services

    document = document_ingest(workspace=other_workspace, path=samples_dir / PARK_HOURS).document
    twins = [Chunk(document=document, ordinal=99, chunk_id=f"twin{i:08d}", text="x", char_start=0, char_end=1)
             for i in range(2)]
    with pytest.raises(ValueError, match="own ordinal"):
        services.chunks_insert(twins)
    assert not Chunk.objects.filter(document=document, ordinal=99).exists()
