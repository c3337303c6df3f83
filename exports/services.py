"""Session exports: render a session in one format and record the export (STYLE.md:
services). Callers check access first; this service never changes session data."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from exports.data import session_data
from exports.document import session_document
from exports.docx import render_docx
from exports.json import render_json
from exports.markdown import render_markdown
from exports.memo import MemoFields, data_with_memo_fields
from exports.models import ExportFormat, ExportRecord
from exports.pdf import render_pdf
from sessions.models import ResearchSession

FORMATS: tuple[str, ...] = tuple(ExportFormat.values)  # ("md", "pdf", "json", "docx")

CONTENT_TYPES = {
    ExportFormat.MARKDOWN: "text/markdown; charset=utf-8",
    ExportFormat.PDF: "application/pdf",
    ExportFormat.JSON: "application/json",
    ExportFormat.DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

RENDERERS = {
    ExportFormat.MARKDOWN: lambda data: render_markdown(session_document(data)),
    ExportFormat.PDF: lambda data: render_pdf(session_document(data)),
    ExportFormat.JSON: render_json,
    ExportFormat.DOCX: lambda data: render_docx(session_document(data)),
}


@dataclass(frozen=True)
class ExportResult:
    """An exported file: its bytes, MIME type, an ASCII file name
    (``ciq-session-12.pdf``, safe for Content-Disposition) and its ``ExportRecord``."""

    content: bytes
    content_type: str
    filename: str
    record: ExportRecord


def session_render(*, session: ResearchSession, fmt: str, user=None,
                   memo: MemoFields | None = None) -> tuple[bytes, dict]:
    """``session`` rendered as ``fmt`` without recording anything: ``(file bytes, the
    ciq.session/1 data)``. ``memo``: To / From / Date / Re values for the header of a
    Draft memo (``exports.memo``), put in a Markdown, PDF or Word file only: the JSON
    export is the sealed record, whose ``answer_markdown`` must match the turn's audit
    seal and event log, so it keeps the stored memo. Raises
    ``ValidationError({"format": ...})`` for an unknown format. ``session_export`` and
    ``manage.py export_benchmark`` use it."""
    if fmt not in FORMATS:
        raise ValidationError({"format": f"Unknown export format {fmt!r}: use one of {', '.join(FORMATS)}."})
    data = session_data(session=session, user=user, exported_at=timezone.now())
    shown = data_with_memo_fields(data, memo) if memo and fmt != "json" else data
    return RENDERERS[fmt](shown), data


def session_export(*, session: ResearchSession, fmt: str, user=None,
                   memo: MemoFields | None = None) -> ExportResult:
    """Render ``session`` (every turn) as ``fmt`` — one of ``FORMATS`` — and record
    the export (format, sha256 hex and size in bytes of the file, the user, the event
    log head it carries) in one transaction.

    ``user`` is who exports (``None`` for a command); the caller has checked that they
    may see the session. ``memo``: header values for a Draft memo (``session_render``).
    Raises ``ValidationError({"format": ...})`` for an unknown
    format; a rendering error propagates and nothing is recorded.
    """
    content, data = session_render(session=session, fmt=fmt, user=user, memo=memo)
    log = data["event_log"]
    with transaction.atomic():
        record = ExportRecord(
            session=session, user=user, format=fmt, sha256=hashlib.sha256(content).hexdigest(),
            size_bytes=len(content), log_seq=log["head_seq"] or None, log_hash=log["head_hash"],
        )
        record.full_clean()
        record.save()
    return ExportResult(content, CONTENT_TYPES[fmt], f"ciq-session-{session.pk}.{fmt}", record)
