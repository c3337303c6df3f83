"""Heading paths and sections for chunks ingested before they were stored (issue 13,
item 2).

``Chunk.heading_path`` and ``Chunk.sections`` are written at ingest; chunks ingested
earlier hold ``[]`` / ``None`` and are cited by their one-line heading, or by the first
section they hold. :func:`heading_paths_backfill` reads each document's stored file
again, chunks it, and, when the chunk boundaries are the ones stored (the chunker only
gained the paths, not new cuts), writes both in one transaction per document
(``bulk_update``). Files are read as ingest reads them, under its time and
memory limits (``retrieval.sandbox.extract_bounded``). A document whose file is gone,
unreadable or whose chunks differ is left as it is and counted: ingesting it again
gives it paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ciq.models import Workspace
from retrieval.chunking import span_sections
from retrieval.extract import ExtractionError
from retrieval.models import Chunk, Document
from retrieval.sandbox import extract_bounded


@dataclass
class BackfillSummary:
    """Documents given paths (``updated``, with ``chunks`` chunks), already with paths
    (``unchanged``), and left alone: no readable file (``missing``) or chunks that do not
    match the stored ones (``differ``)."""

    updated: int = 0
    chunks: int = 0
    unchanged: int = 0
    missing: int = 0
    differ: int = 0


def heading_paths_backfill(*, workspace: Workspace) -> BackfillSummary:
    """Write ``heading_path`` and ``sections`` on the chunks of ``workspace``'s ready
    documents that lack sections (see the module docstring). Never raises for one
    document's file."""
    summary = BackfillSummary()
    documents = Document.objects.filter(workspace=workspace, status=Document.Status.READY)
    for document in documents.iterator():
        chunks = list(document.chunks.order_by("ordinal").only("pk", "char_start", "char_end", "heading",
                                                               "heading_path", "sections"))
        if not chunks or all(c.sections is not None for c in chunks):
            summary.unchanged += 1
            continue
        path = _file_path(document)
        try:  # under the ingest's time and memory limits: one bad file cannot stop the run
            _, spans = extract_bounded(path, owner=workspace.pk) if path else (None, None)
        except ExtractionError:
            spans = None
        if spans is None:
            summary.missing += 1
            continue
        if [(s.char_start, s.char_end, s.heading) for s in spans] != \
                [(c.char_start, c.char_end, c.heading) for c in chunks]:
            summary.differ += 1
            continue
        for chunk, span in zip(chunks, spans, strict=True):
            chunk.heading_path = list(span.heading_path)
            chunk.sections = span_sections(span)
        Chunk.objects.bulk_update(chunks, ["heading_path", "sections"], batch_size=500)  # atomic itself
        summary.updated += 1
        summary.chunks += len(chunks)
    return summary


def _file_path(document: Document) -> Path | None:
    """The stored copy of the document's file, else the path it was loaded from."""
    for candidate in (document.file.path if document.file else None, document.source_path):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None
