"""Background ingest of uploaded files (django-tasks)."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from django_tasks import task

from retrieval.manifest import DocumentMetadata
from retrieval.models import Document
from retrieval.services import document_ingest

INGEST_QUEUE = "ingest"  # its own worker (Procfile): questions never wait behind uploads


@task(queue_name=INGEST_QUEUE)
def document_ingest_task(document_id: int, staged_path: str, metadata: dict) -> str:
    """Ingest one staged upload into its Document (made by ``documents_upload``) and
    remove the staged copy; returns the ingest status (created, updated, unchanged,
    failed). A document deleted meanwhile is skipped ("deleted")."""
    staged = Path(staged_path)
    try:
        document = Document.objects.select_related("workspace").filter(pk=document_id).first()
        if document is None:
            return "deleted"
        last_updated = metadata.get("last_updated")
        meta = DocumentMetadata(**{
            **metadata,
            "last_updated": dt.date.fromisoformat(last_updated) if last_updated else None,
        })
        # Messages name the file as uploaded, never by its staged server path (issue 11).
        result = document_ingest(workspace=document.workspace, path=staged, metadata=meta,
                                 source_path=document.source_path, shown_as=staged.name)
        return str(result.status)
    finally:
        shutil.rmtree(staged.parent, ignore_errors=True)
