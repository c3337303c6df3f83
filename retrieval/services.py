"""Retrieval writes: ingesting and deleting documents (DESIGN.md §2, §3).

Ingestion is extract → chunk → (embed) → index. The configured index
(``retrieval.index.index_get``) takes the chunks in the transaction that creates them and
lets them go with them (its ``upsert`` and ``remove``, ``retrieval.index_writes``;
:func:`chunks_delete`, ``retrieval.signals``): the workspace's own lexical rows
(``retrieval.fts``) and, with an embedder (``CIQ_EMBEDDER``), the vectors embedded in
batches before the transaction (``ChunkVector``); with ``CIQ_INDEX=pinecone`` also the
copy in the workspace's Pinecone namespace, once the transaction commits. An embedding or Pinecone
failure never loses a document: it is stored without vectors (or without its Pinecone
copy), a warning says so, and :func:`workspace_embed` (``manage.py embed``) fills the gap.

Idempotence: a document is keyed by ``(workspace, source_path)`` and identified by the
sha256 of its bytes. The same bytes again are "unchanged" (no new rows, chunk ids are a
function of the sha256 and offsets so they stay the same); new bytes at a known
``source_path`` replace that document's chunks and metadata ("updated") only once they
have been extracted, chunked and written: a new version that fails leaves the ready one
as it was. Citations of replaced or deleted chunks stay readable from the turn's source
snapshot (``Turn.sources``), which the chunk page and the exports fall back to.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.core.files import File
from django.db import connection, models, transaction

from ciq.models import AuditEvent, Workspace
from ciq.permissions import Action, permission_require
from ciq.services import audit_record
from retrieval.chunking import chunk_id_for, chunk_text, span_sections
from retrieval.dense import embedding_text
from retrieval.embedders import Embedder, EmbeddingError, embedder_get, embedder_require
from retrieval.extract import (
    SUPPORTED_SUFFIXES,
    ExtractedText,
    ExtractionError,
    extract_text,
    oversize_reason,
)
from retrieval.fts import fts_relabel
from retrieval.index import ChunkIndex, index_get
from retrieval.index_writes import vectors_store
from retrieval.manifest import DocumentMetadata, default_metadata, read_manifest
from retrieval.models import Chunk, Document, JurisdictionLevel
from retrieval.sandbox import extract_bounded

logger = logging.getLogger(__name__)

# Files in a corpus folder that describe the corpus rather than belong to it.
SKIPPED_FILE_NAMES = frozenset({"manifest.csv", "sources.csv", "readme.md", "sources.md"})
_STORED_STEM_CHARS = 60  # FileField max_length is 100 including "documents/YYYY/MM/"
_REASON_CHARS = 300  # longest failure reason kept from an unexpected exception
_EMBED_SLICE = 512  # chunks embedded and committed together by workspace_embed
_INSERT_ROWS = 500  # chunk rows per INSERT statement (14 values each; SQLite allows 32,766)
_LOOKUP_PATHS = 500  # source paths per query of _ready_sizes


class IngestStatus(models.TextChoices):
    CREATED = "created", "Created"
    UPDATED = "updated", "Updated"
    UNCHANGED = "unchanged", "Unchanged"
    FAILED = "failed", "Failed"


@dataclass
class IngestResult:
    """The outcome of ingesting one file.

    ``status``: an :class:`IngestStatus` value. ``document``: the row written or found
    (``None`` only if even the failure could not be recorded). ``chunks``: the
    document's chunk count after ingest (0 when failed). ``error``: the reason of a
    failure, for a person ("" otherwise). ``path``: the file as given, or the name it is
    shown by (``document_ingest``'s ``shown_as``). ``warning``: what
    went wrong without failing the document (its chunks could not be embedded), "" if
    nothing.
    """

    document: Document | None
    status: str
    chunks: int
    error: str
    path: str
    warning: str = ""


@dataclass
class CollectedFiles:
    """What :func:`collect_files` found.

    ``files``: the files to ingest, in order, each once. ``skipped``: files inside the
    given folders left out for an unsupported extension, in order (hidden files and the
    corpus notes are left out silently and not listed).
    """

    files: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)


@dataclass
class IngestSummary:
    """Totals of one :func:`documents_ingest` run.

    ``documents``: files processed; ``created``/``updated``/``unchanged``/``failed``:
    files per outcome; ``chunks``: chunks of the documents that are ready after the run
    (unchanged ones included); ``bytes``: the size of the files tried; ``seconds``:
    wall-clock time; ``failures``: the failed results, in order; ``skipped``: files
    found in the given folders but not tried because their extension is unsupported, as
    paths (not counted in ``documents``).
    """

    documents: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    failed: int = 0
    chunks: int = 0
    bytes: int = 0
    seconds: float = 0.0
    failures: list[IngestResult] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def add(self, result: IngestResult) -> None:
        """Count one result in."""
        self.documents += 1
        if result.status == IngestStatus.FAILED:
            self.failed += 1
            self.failures.append(result)
            return
        setattr(self, str(result.status), getattr(self, str(result.status)) + 1)
        self.chunks += result.chunks

    @property
    def mb_per_second(self) -> float:
        """Throughput in MB (10⁶ bytes) of files tried per second of the run; 0.0 for an
        empty or instant run."""
        return self.bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0


def document_ingest(
    *,
    workspace: Workspace,
    path: Path,
    metadata: DocumentMetadata | None = None,
    source_path: str | None = None,
    shown_as: str | None = None,
    then: Path | None = None,
) -> IngestResult:
    """Load one file into ``workspace``: extract its text, chunk it, write the Document
    and its Chunks (and their rows in the workspace's lexical index) and keep a copy of the file in
    default storage (``Document.file``).

    ``source_path`` is the document's key in the workspace (default: the file's absolute
    path). ``metadata``: title, jurisdiction, level, source type, citation label, last
    updated; ``None`` keeps the metadata of a document already at ``source_path`` and
    gives a new one :func:`retrieval.manifest.default_metadata`. ``shown_as``: how the
    messages name the file (default: ``path`` as given, the operator's own path); an
    upload passes the name it was uploaded under, so no server path reaches the person
    (issue 11) — a reason quoting the staged path shows that name instead. The stored
    ``Document.error``, which the firm's users read, names files by their file name only
    (also for the command line: never the operator's server path).

    Outcomes (``IngestResult.status``): ``created``; ``unchanged`` when the workspace
    already holds these bytes (same sha256; no second copy is made; at the same
    ``source_path`` changed metadata is applied, which makes it ``updated``); ``updated``
    when ``source_path`` held other bytes (its chunks and metadata are replaced);
    ``failed`` when the file cannot be read, is over ``settings.INGEST_MAX_FILE_BYTES``
    (checked before its bytes are read), or cannot be extracted or written: a *ready*
    Document at ``source_path`` then stays ready and untouched (its chunks, stored file
    and metadata), with ``error`` saying the new version was not loaded and why; any
    other Document at ``source_path`` (a new one if none) is marked ``failed`` with
    ``error`` = "reason (file)", and holds no chunks. Nothing is raised for a bad file, whatever
    the parser raises on it (an unexpected exception is logged and becomes the reason
    "could not be read (TypeName: message)", at most 300 characters). Extraction and
    chunking run before the database transaction; the Document and all its Chunks are
    written in one ``transaction.atomic()``, so a failure leaves no partial rows. Chunk
    ``token_count`` is the chunk's word count. With ``CIQ_EMBEDDER`` set, the chunks are
    embedded (title, heading and text) before the transaction and their vectors written
    in it; an embedding failure keeps the document, without vectors, and sets
    ``warning``. ``ImproperlyConfigured`` (e.g. no API key) is raised. ``then``: the file
    the caller ingests next, read while this one is written
    (``retrieval.sandbox.extract_bounded``).
    """
    path = Path(path)
    shown = shown_as or str(path)
    source_path = source_path or str(path.resolve())

    size = 0
    try:
        size = path.stat().st_size
        too_large = oversize_reason(size)
        if too_large:  # refused before a byte of it is read
            return _record_failure(workspace=workspace, path=path, shown=shown, source_path=source_path,
                                   metadata=metadata, at_path=_document_at(workspace, source_path),
                                   sha256="", size=size, reason=too_large)
        sha256, size = _file_digest(path)
    except OSError as exc:
        reason = "file not found" if isinstance(exc, FileNotFoundError) else (
            f"cannot read file ({exc.strerror or exc})"
        )
        return _record_failure(workspace=workspace, path=path, shown=shown, source_path=source_path,
                               metadata=metadata, at_path=_document_at(workspace, source_path),
                               sha256="", size=size, reason=reason)

    at_path, ready_same = _documents_at_or_with(workspace, source_path, sha256)
    same = at_path if (at_path is not None and at_path.sha256 == sha256) else ready_same
    if same is not None and same.status == Document.Status.READY:
        if at_path is not None and at_path.pk != same.pk:
            # Chunk ids derive from the sha256: two documents with the same bytes would
            # share ids and make citations ambiguous.
            other = same.source_path if shown_as is None else Path(same.source_path).name
            return _record_failure(
                workspace=workspace, path=path, shown=shown, source_path=source_path,
                metadata=metadata, at_path=at_path, sha256=sha256, size=size,
                reason=f"same content as the already ingested {other}",
                other_paths=(same.source_path,),
            )
        if same.source_path != source_path:
            # Another path already holds these bytes: not a second copy, and not this
            # file's metadata either (it belongs to the other path's manifest row).
            return IngestResult(document=same, status=IngestStatus.UNCHANGED,
                                chunks=same.chunks.count(), error="", path=shown)
        if same.error and same.source_path == source_path:  # a refused version, superseded
            Document.objects.filter(pk=same.pk).update(error="")
            same.error = ""
        return _apply_metadata(document=same, metadata=metadata, path=shown)

    try:  # in a child process, under the time and memory limits (retrieval/sandbox.py)
        extracted, spans = extract_bounded(path, work=_extract_and_chunk, owner=workspace.pk, then=then)
    except ExtractionError as exc:
        return _record_failure(workspace=workspace, path=path, shown=shown, source_path=source_path,
                               metadata=metadata, at_path=at_path, sha256=sha256, size=size,
                               reason=exc.reason)
    except Exception as exc:  # a parser (bs4/lxml, pypdfium2, python-docx) choked on it
        logger.exception("ingest of %s failed while reading", path)
        return _record_failure(
            workspace=workspace, path=path, shown=shown, source_path=source_path,
            metadata=metadata, at_path=at_path, sha256=sha256, size=size,
            reason=_trim(f"could not be read ({type(exc).__name__}: {exc})"),
        )
    if not spans:
        return _record_failure(workspace=workspace, path=path, shown=shown, source_path=source_path,
                               metadata=metadata, at_path=at_path, sha256=sha256, size=size,
                               reason="no text to index")

    embedder = embedder_get()
    vectors, warning = None, ""
    if embedder is not None:
        if metadata is not None:
            title = metadata.title
        else:
            title = at_path.title if at_path is not None else default_metadata(path).title
        try:
            vectors = embedder.embed([
                embedding_text(title, span.heading, extracted.text[span.char_start : span.char_end])
                for span in spans
            ])
        except EmbeddingError as exc:
            warning = _not_embedded(workspace, exc)
    try:
        document, status = _write_document(
            workspace=workspace, path=path, source_path=source_path, metadata=metadata,
            at_path=at_path, sha256=sha256, size=size, extracted=extracted, spans=spans,
            vectors=vectors, embedder=embedder,
        )
    except Exception as exc:  # one bad document must not stop a batch of hundreds
        logger.exception("ingest of %s failed while writing", path)
        return _record_failure(
            workspace=workspace, path=path, shown=shown, source_path=source_path,
            metadata=metadata, at_path=_refetch(at_path), sha256=sha256, size=size,
            reason=_trim(f"could not be saved ({type(exc).__name__}: {exc})"),
        )
    return IngestResult(document=document, status=status, chunks=len(spans), error="",
                        path=shown, warning=warning)


def documents_ingest(
    *,
    workspace: Workspace,
    paths: Sequence[Path] | CollectedFiles,
    manifest: Path | None = None,
    progress: Callable[[IngestResult], None] | None = None,
) -> IngestSummary:
    """Ingest files and folders into ``workspace`` with :func:`document_ingest`.

    ``paths``: files and folders, expanded by :func:`collect_files`, or what
    :func:`collect_files` already returned (used as is, so a caller that needs the file
    count first does not walk the folders twice). Folders are walked recursively in
    sorted order, keeping files with a supported extension
    (:data:`retrieval.extract.SUPPORTED_SUFFIXES`); files with another extension are
    listed in ``IngestSummary.skipped``; hidden files and the corpus notes
    ``manifest.csv``, ``sources.csv``, ``README.md`` and ``SOURCES.md`` are passed over
    silently. Files named directly are always tried (an unsupported one fails with its
    reason). A file listed twice is ingested once. ``manifest``: a CSV read by
    :func:`retrieval.manifest.read_manifest`; files are matched by their path relative to
    the manifest's folder, and files without a row get default metadata (documents
    already ingested keep theirs). ``progress`` is called after each file.

    Raises ``FileNotFoundError`` when a path does not exist and
    :class:`retrieval.manifest.ManifestError` for a bad manifest, both before anything is
    written. Bad files do not raise: they are counted in ``failed``.
    """
    started = time.perf_counter()
    collected = paths if isinstance(paths, CollectedFiles) else collect_files(paths)
    entries = read_manifest(manifest) if manifest is not None else {}
    manifest_root = Path(manifest).resolve().parent if manifest is not None else None
    summary = IngestSummary(skipped=[str(p) for p in collected.skipped])
    ready = _ready_sizes(workspace, collected.files)
    for i, file in enumerate(collected.files):
        metadata = None
        if manifest_root is not None:
            resolved = file.resolve()
            if resolved.is_relative_to(manifest_root):
                metadata = entries.get(resolved.relative_to(manifest_root).as_posix())
        following = collected.files[i + 1] if i + 1 < len(collected.files) else None
        then = following if following is not None and _to_be_read(following, ready) else None
        result = document_ingest(workspace=workspace, path=file, metadata=metadata, then=then)
        summary.add(result)
        with contextlib.suppress(OSError):  # a file gone since: counted as failed already
            summary.bytes += file.stat().st_size
        if progress is not None:
            progress(result)
    summary.seconds = time.perf_counter() - started
    return summary


def _ready_sizes(workspace: Workspace, files: Sequence[Path]) -> set[tuple[str, int]]:
    """(source path, size in bytes) of the workspace's ready documents at the paths of
    ``files``: what :func:`_to_be_read` looks at, read once for a batch (500 paths a
    query) instead of once per file."""
    paths = [str(file.resolve()) for file in files]
    ready: set[tuple[str, int]] = set()
    for start in range(0, len(paths), _LOOKUP_PATHS):
        ready.update(Document.objects.filter(workspace=workspace, status=Document.Status.READY,
                                             source_path__in=paths[start:start + _LOOKUP_PATHS])
                     .values_list("source_path", "size_bytes"))
    return ready


def _to_be_read(path: Path, ready: set[tuple[str, int]]) -> bool:
    """Whether ingesting ``path`` will likely read it, so it is worth reading ahead: no
    ready document at its path had its size when the batch began (``ready``:
    :func:`_ready_sizes`; an unchanged file is known by its digest only later; a wrong
    guess costs one file read for nothing, or one file not read ahead)."""
    try:
        size = path.stat().st_size
    except OSError:
        return False
    if oversize_reason(size):
        return False
    return (str(path.resolve()), size) not in ready


def collect_files(paths: Sequence[Path]) -> CollectedFiles:
    """The files to ingest under ``paths`` and the files skipped for an unsupported
    extension (see :func:`documents_ingest` for the rules), each in order and once; a
    file both named directly and skipped in a folder counts as named. Raises
    ``FileNotFoundError`` naming the first missing path."""
    files: list[Path] = []
    seen: set[Path] = set()
    skipped: dict[Path, Path] = {}  # resolved -> as found
    for given in paths:
        given = Path(given)
        if not given.exists():
            raise FileNotFoundError(f"no such file or folder: {given}")
        if given.is_dir():
            found = []
            for p in sorted(given.rglob("*")):
                if (
                    not p.is_file()
                    or p.name.lower() in SKIPPED_FILE_NAMES
                    or any(part.startswith(".") for part in p.relative_to(given).parts)
                ):
                    continue
                if p.suffix.lower() in SUPPORTED_SUFFIXES:
                    found.append(p)
                else:
                    skipped.setdefault(p.resolve(), p)
        else:
            found = [given]
        for file in found:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                files.append(file)
    return CollectedFiles(
        files=files, skipped=[p for key, p in skipped.items() if key not in seen]
    )


def document_delete(*, document: Document, user=None) -> None:
    """Delete ``document`` and record it (``AuditEvent`` ``document_deleted``): its chunks
    and vectors go by cascade (and leave the lexical index through ``retrieval.signals``);
    the stored file copy, and with ``CIQ_INDEX=pinecone`` the chunks' Pinecone vectors,
    are removed once the transaction commits. ``user``: who deletes (None: an operator's
    command). Raises ``PermissionDenied`` when ``user``'s role may not delete documents
    (``ciq.permissions``: admins and owners may)."""
    permission_require(user=user, workspace=document.workspace, action=Action.DELETE_DOCUMENT)
    with transaction.atomic():
        audit_record(workspace=document.workspace, actor=user, action=AuditEvent.Action.DOCUMENT_DELETED,
                     target=document.title, document_id=document.pk, source_path=document.source_path,
                     sha256=document.sha256, chunks=document.chunks.count())
        _delete_file_on_commit(document.file.name)
        document.delete()  # its chunks leave the index first (retrieval.signals)


@dataclass
class EmbedSummary:
    """Totals of one :func:`workspace_embed` run: ``model`` (embedder name); ``embedded``:
    chunks embedded now; ``vectors``: the workspace's chunks with a vector of ``model``
    afterwards, of ``chunks`` ready chunks; ``pushed``: vectors upserted to Pinecone
    (``CIQ_INDEX=pinecone``); ``seconds``: wall-clock time of the embedding alone."""

    model: str
    embedded: int = 0
    vectors: int = 0
    chunks: int = 0
    pushed: int = 0
    seconds: float = 0.0


def workspace_embed(
    *,
    workspace: Workspace,
    embedder: Embedder | None = None,
    everything: bool = False,
    progress: Callable[[int], None] | None = None,
) -> EmbedSummary:
    """Embed the workspace's chunks that have no vector of ``embedder`` (default: the
    configured one; ``everything``: all of them again) in slices of 512 chunks, each
    slice committed on its own, so an interrupted run keeps what it did. With
    ``CIQ_INDEX=pinecone`` all the workspace's vectors are then upserted to its namespace
    (upserts overwrite: running again is safe). ``progress`` gets the chunks embedded
    so far.

    Raises ``ImproperlyConfigured`` without an embedder, ``EmbeddingError`` and
    ``PineconeSyncError`` (slices committed before the failure stay).
    """
    embedder = embedder or embedder_require()
    ready = Chunk.objects.filter(document__workspace=workspace,
                                 document__status=Document.Status.READY)
    todo = ready if everything else ready.exclude(vectors__model=embedder.name)
    pks = list(todo.order_by("pk").values_list("pk", flat=True))
    summary = EmbedSummary(model=embedder.name, chunks=ready.count())
    started = time.perf_counter()
    for start in range(0, len(pks), _EMBED_SLICE):
        chunks = list(Chunk.objects.filter(pk__in=pks[start : start + _EMBED_SLICE])
                      .select_related("document").order_by("pk"))
        vectors = embedder.embed(
            [embedding_text(c.document.title, c.heading, c.text) for c in chunks]
        )
        with transaction.atomic():
            vectors_store(chunks=chunks, vectors=vectors, model=embedder.name)
        summary.embedded += len(chunks)
        if progress is not None:
            progress(summary.embedded)
    summary.seconds = time.perf_counter() - started
    summary.vectors = ready.filter(vectors__model=embedder.name).count()
    summary.pushed = index_get().vectors_changed(workspace.pk)
    return summary


# --- internals ----------------------------------------------------------------------------


def _extract_and_chunk(path: Path) -> tuple[ExtractedText, list]:
    """Extraction and chunking of one file: what :func:`extract_bounded` runs in its
    child process."""
    extracted = extract_text(path)
    return extracted, chunk_text(extracted.text, extracted.page_starts)


def _document_at(workspace: Workspace, source_path: str) -> Document | None:
    """The workspace's document at ``source_path`` (the first made, if several)."""
    return Document.objects.filter(workspace=workspace, source_path=source_path).order_by("id").first()


def _documents_at_or_with(workspace: Workspace, source_path: str,
                          sha256: str) -> tuple[Document | None, Document | None]:
    """(the workspace's document at ``source_path``, its first ready document holding the
    bytes ``sha256``), each the first made if several, None if none: one query, where
    ingest asked two for each file. A UNION, not an OR: SQLite reads each half from its
    own index ((workspace, source_path), (workspace, sha256)), but the OR from the
    workspace's, every document of the workspace for each file."""
    at_path = ready_same = None
    # Unordered halves: SQLite refuses an ORDER BY (Document's default) inside a UNION.
    by_path = Document.objects.filter(workspace=workspace, source_path=source_path).order_by()
    by_bytes = (Document.objects.filter(workspace=workspace, sha256=sha256, status=Document.Status.READY)
                .order_by())
    for document in by_path.union(by_bytes).order_by("id"):
        if at_path is None and document.source_path == source_path:
            at_path = document
        if ready_same is None and document.sha256 == sha256 and document.status == Document.Status.READY:
            ready_same = document
    return at_path, ready_same


def _file_digest(path: Path) -> tuple[str, int]:
    """(sha256 hex of the file's bytes, size in bytes), read in 1 MiB blocks."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def _trim(reason: str) -> str:
    """``reason`` cut to ``_REASON_CHARS`` characters (an exception text can be huge)."""
    if len(reason) <= _REASON_CHARS:
        return reason
    return reason[: _REASON_CHARS - 1].rstrip() + "…"


def _metadata_fields(metadata: DocumentMetadata) -> dict:
    return {
        "title": metadata.title[:500],
        "jurisdiction": metadata.jurisdiction,
        "jurisdiction_level": JurisdictionLevel(metadata.jurisdiction_level),
        "source_type": metadata.source_type,
        "citation_label": metadata.citation_label[:300],
        "last_updated": metadata.last_updated,
    }


def _apply_metadata(*, document: Document, metadata: DocumentMetadata | None,
                    path: str) -> IngestResult:
    """The "same bytes" outcome: unchanged, or updated when the metadata differs."""
    chunks = document.chunks.count()
    if metadata is None:
        return IngestResult(document=document, status=IngestStatus.UNCHANGED, chunks=chunks,
                            error="", path=path)
    fields = _metadata_fields(metadata)
    changed = {k: v for k, v in fields.items() if getattr(document, k) != v}
    if not changed:
        return IngestResult(document=document, status=IngestStatus.UNCHANGED, chunks=chunks,
                            error="", path=path)
    with transaction.atomic():
        for name, value in changed.items():
            setattr(document, name, value)
        document.full_clean(exclude=["file"])
        document.save()  # derives the lane; the FTS title follows (retrieval.signals)
        document.chunks.update(jurisdiction=document.jurisdiction, lane=document.lane)
        fts_relabel(document.workspace_id, document.pk)  # the lexical postings carry them on PostgreSQL
    warning = ""
    embedder = embedder_get()
    if "title" in changed and embedder is not None:  # the title is part of each embedded text
        rows = list(document.chunks.filter(vectors__model=embedder.name).select_related("document"))
        try:
            vectors = embedder.embed([embedding_text(document.title, c.heading, c.text) for c in rows])
        except EmbeddingError as exc:
            warning = _not_embedded(document.workspace, exc)
        else:
            with transaction.atomic():
                vectors_store(chunks=rows, vectors=vectors, model=embedder.name)
    # New metadata (jurisdiction, lane) for an index that filters on its own copy.
    index_get().vectors_changed(document.workspace_id, documents=[document.pk], on_commit=True)
    return IngestResult(document=document, status=IngestStatus.UPDATED, chunks=chunks, error="",
                        path=path, warning=warning)


def _write_document(
    *,
    workspace: Workspace,
    path: Path,
    source_path: str,
    metadata: DocumentMetadata | None,
    at_path: Document | None,
    sha256: str,
    size: int,
    extracted: ExtractedText,
    spans: list,
    vectors: np.ndarray | None,
    embedder: Embedder | None,
) -> tuple[Document, str]:
    """Write the Document, its Chunks and their ``vectors`` (one row per span, or None)
    in one transaction; returns (document, status).

    The file copy is stored first (storage is not transactional) and removed again if
    the transaction fails; a replaced copy is removed only after the commit, as are
    replaced chunks' Pinecone vectors (and the new ones are pushed).
    """
    document = at_path if at_path is not None else Document(workspace=workspace)
    index = index_get()
    status = IngestStatus.UPDATED if at_path is not None else IngestStatus.CREATED
    if metadata is None and at_path is None:
        metadata = default_metadata(path)
    old_file = document.file.name if at_path is not None else ""

    with path.open("rb") as handle:
        stored_name = document.file.storage.save(
            document.file.field.generate_filename(document, _stored_name(path)),
            File(handle),
            max_length=document.file.field.max_length,
        )
    try:
        with transaction.atomic():
            if metadata is not None:
                for name, value in _metadata_fields(metadata).items():
                    setattr(document, name, value)
            document.file.name = stored_name
            document.source_path = source_path
            document.sha256 = sha256
            document.mime = extracted.mime
            document.size_bytes = size
            document.page_count = extracted.page_count
            document.status = Document.Status.READY
            document.error = ""
            # The metadata's lengths and choices are checked; the workspace, the caller's
            # own row, is not looked up again (a query for each file).
            document.full_clean(exclude=["file", "workspace"])
            document.save()  # derives the lane from the level
            if at_path is not None:
                chunks_delete(document, index)
            text = extracted.text
            created = chunks_insert(
                [
                    Chunk(
                        document=document,
                        chunk_id=chunk_id_for(sha256, span.char_start, span.char_end),
                        ordinal=ordinal,
                        text=text[span.char_start : span.char_end],
                        char_start=span.char_start,
                        char_end=span.char_end,
                        page_start=span.page_start,
                        page_end=span.page_end,
                        heading=span.heading,
                        heading_path=list(span.heading_path),
                        sections=span_sections(span),
                        token_count=span.words,
                        jurisdiction=document.jurisdiction,
                        lane=document.lane,
                    )
                    for ordinal, span in enumerate(spans)
                ]
            )
            index.upsert(document, created, vectors=vectors if embedder is not None else None,
                         model=embedder.name if embedder is not None else "")
            if old_file and old_file != stored_name:
                _delete_file_on_commit(old_file)
    except BaseException:
        document.file.storage.delete(stored_name)
        raise
    return document, status


def _record_failure(
    *,
    workspace: Workspace,
    path: Path,
    shown: str,
    source_path: str,
    metadata: DocumentMetadata | None,
    at_path: Document | None,
    sha256: str,
    size: int,
    reason: str,
    other_paths: Sequence[str] = (),
) -> IngestResult:
    """Mark the document at ``source_path`` (or a new one) failed, with no chunks.

    A document that is ready stays as it is — status, chunks, stored file, metadata —
    and only its ``error`` reports the refused new version: a bad re-upload (an
    encrypted file under the name of a good one) must never delete the good version.

    ``shown`` names the file in the returned result (the operator's path for the
    command line, the uploaded name for an upload). The stored ``Document.error`` is read
    by the firm's users (pages, API), so it names files by their name only: ``path`` and
    ``other_paths`` (another document's key quoted in ``reason``) become their file names
    there, never a server path (issue 11).
    """
    stored = _path_hidden(reason, paths=(str(path), str(path.resolve())),
                          shown=Path(shown).name)
    for other in other_paths:
        stored = _path_hidden(stored, paths=(other,), shown=Path(other).name)
    reason = _path_hidden(reason, paths=(str(path), str(path.resolve())), shown=shown)
    if at_path is not None and at_path.status == Document.Status.READY:
        message = f"new version not loaded, the previous one is kept: {stored} ({Path(shown).name})"
        try:
            Document.objects.filter(pk=at_path.pk).update(error=message)
            at_path.error = message
        except Exception:
            logger.exception("could not record the failure of %s", path)
        return IngestResult(document=at_path, status=IngestStatus.FAILED, chunks=0,
                            error=reason, path=shown)
    try:
        with transaction.atomic():
            document = at_path if at_path is not None else Document(workspace=workspace)
            if metadata is not None or at_path is None:
                for name, value in _metadata_fields(metadata or default_metadata(path)).items():
                    setattr(document, name, value)
            if at_path is not None:
                chunks_delete(document, index_get())
                _delete_file_on_commit(document.file.name)
                document.file.name = ""
            document.source_path = source_path
            document.sha256 = sha256
            document.size_bytes = size
            document.mime = ""
            document.page_count = None
            document.status = Document.Status.FAILED
            document.error = f"{stored} ({Path(shown).name})"
            document.save()
    except Exception:  # the database itself is failing: still report the first reason
        logger.exception("could not record the failure of %s", path)
        document = None
    return IngestResult(document=document, status=IngestStatus.FAILED, chunks=0, error=reason,
                        path=shown)


def _path_hidden(reason: str, *, paths: Sequence[str], shown: str) -> str:
    """``reason`` with each of ``paths`` (longest first) replaced by ``shown``: an
    exception text may quote the staged server path of an upload or an operator's path."""
    for full in sorted(set(paths), key=len, reverse=True):
        reason = reason.replace(full, shown)
    return reason


def _refetch(document: Document | None) -> Document | None:
    """The row as committed (a rolled-back save may have changed the instance)."""
    if document is None:
        return None
    return Document.objects.filter(pk=document.pk).first()


def _stored_name(path: Path) -> str:
    return path.stem[:_STORED_STEM_CHARS] + path.suffix.lower()


def _delete_file_on_commit(name: str) -> None:
    if not name:
        return
    storage = Document._meta.get_field("file").storage
    transaction.on_commit(lambda: storage.delete(name))



def _not_embedded(workspace: Workspace, exc: Exception) -> str:
    """The warning for chunks stored without vectors, logged and returned."""
    warning = (f"stored without vectors: {exc} Run `manage.py embed --workspace "
               f"{workspace.name!r}` when the embedder is back.")
    logger.warning("%s", warning)
    return warning


def chunks_insert(chunks: list[Chunk]) -> list[Chunk]:
    """Insert ``chunks`` (new, unsaved, of one document) and set their primary keys;
    returns them. What ``Chunk.objects.bulk_create`` does, a few times faster.

    Why not the ORM: ``bulk_create`` prepares every value of every row through its field
    (``get_db_prep_save``, 14 fields a chunk), which cost more than the INSERT itself
    (the corpus's 4,108 chunks: 0.36 s against 0.11 s of SQL). The values here are
    already what the columns hold (ints, strings, None); only the JSON columns go
    through their field, so each database adapts them as the ORM would (a string on
    SQLite, ``Jsonb`` on PostgreSQL). The keys are read back with each row's ordinal
    (``RETURNING id, ordinal``): SQLite does not promise RETURNING rows in the order of
    the VALUES. A database without RETURNING (SQLite before 3.35) gets ``bulk_create``.
    Call inside the transaction that writes the document. Raises ``ValueError`` when the
    chunks are of several documents or two share an ordinal (their keys could not be told
    apart), ``IntegrityError`` when a chunk id or ordinal is already stored."""
    if not chunks:
        return chunks
    if len({chunk.document_id for chunk in chunks}) > 1 or len({c.ordinal for c in chunks}) < len(chunks):
        raise ValueError("chunks_insert takes the chunks of one document, each with its own ordinal")
    if not connection.features.can_return_rows_from_bulk_insert:
        return Chunk.objects.bulk_create(chunks, batch_size=_INSERT_ROWS)
    meta = Chunk._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    json_fields = {f.attname: f for f in fields if f.get_internal_type() == "JSONField"}
    quote = connection.ops.quote_name
    insert = (f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
              "VALUES ")
    returning = f" RETURNING {quote(meta.pk.column)}, {quote(meta.get_field('ordinal').column)}"
    row_sql = "(" + ", ".join(["%s"] * len(fields)) + ")"
    by_ordinal = {chunk.ordinal: chunk for chunk in chunks}
    with connection.cursor() as cursor:
        for start in range(0, len(chunks), _INSERT_ROWS):
            batch = chunks[start:start + _INSERT_ROWS]
            values = []
            for chunk in batch:
                for f in fields:
                    value = getattr(chunk, f.attname)
                    if f.attname in json_fields:
                        value = json_fields[f.attname].get_db_prep_save(value, connection)
                    values.append(value)
            cursor.execute(insert + ", ".join([row_sql] * len(batch)) + returning, values)
            for pk, ordinal in cursor.fetchall():
                by_ordinal[ordinal].pk = pk
    for chunk in chunks:
        chunk._state.adding = False
        chunk._state.db = connection.alias
    return chunks


def chunks_delete(document: Document, index: ChunkIndex) -> None:
    """Delete the document's chunks after taking them out of ``index`` (its lexical rows,
    and any copy the index keeps elsewhere); their vectors go by cascade."""
    index.remove(document)
    Chunk.objects.filter(document=document).delete()
