"""Uploads from the browser and the API: validate, stage, ingest in the background.

An upload is checked at once (supported type, not empty, within
``INGEST_MAX_FILE_BYTES``, within the workspace's quotas ``WORKSPACE_MAX_DOCUMENTS`` and
``WORKSPACE_MAX_BYTES``), staged under ``MEDIA_ROOT/uploads/`` and given a pending
Document, so the person sees it in the list straight away; the worker then ingests it
with :func:`retrieval.services.document_ingest`, which turns it ready or failed with
its reason (DESIGN.md §2). Ingest tasks go to their own queue ("ingest", its own
``db_worker`` in the Procfile), so questions never wait behind a file being parsed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path, PurePath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import Sum
from django.utils.text import get_valid_filename

from ciq.models import Workspace
from ciq.permissions import Action, permission_require
from retrieval.extract import SUPPORTED_SUFFIXES, oversize_reason, sizes_shown
from retrieval.manifest import DocumentMetadata, default_metadata
from retrieval.models import Document, JurisdictionLevel

UPLOAD_KEY_PREFIX = "upload/"


def upload_source_path(name: str) -> str:
    """The ingest key of an uploaded file: the same name again replaces that document."""
    return UPLOAD_KEY_PREFIX + PurePath(name).name


def upload_check(upload: UploadedFile) -> None:
    """Raise ``ValidationError`` (naming the file) for an unsupported type, an empty
    file or one over ``INGEST_MAX_FILE_BYTES``."""
    name = PurePath(upload.name or "").name
    suffix = PurePath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise ValidationError(
            f"{name or 'file'}: unsupported file type “{suffix or 'none'}”; use "
            f"{', '.join(sorted(SUPPORTED_SUFFIXES))}."
        )
    if not upload.size:
        raise ValidationError(f"{name}: the file is empty.")
    too_large = oversize_reason(upload.size)
    if too_large:
        raise ValidationError(f"{name}: {too_large}.")


def metadata_for(name: str, *, title: str = "", jurisdiction: str = "",
                 jurisdiction_level: str = "", source_type: str = "",
                 citation_label: str = "", last_updated: dt.date | None = None) -> DocumentMetadata:
    """Upload metadata: given values over :func:`default_metadata` (title from the file
    name, ``private``). Raises ``ValidationError`` for an unknown level."""
    base = default_metadata(Path(name))
    level = jurisdiction_level or base.jurisdiction_level
    if level not in JurisdictionLevel.values:
        raise ValidationError({"jurisdiction_level": (
            f"Unknown level {level!r}: use one of {', '.join(JurisdictionLevel.values)}."
        )})
    return DocumentMetadata(
        title=title.strip() or base.title,
        jurisdiction=jurisdiction.strip() or base.jurisdiction,
        jurisdiction_level=level,
        source_type=source_type.strip() or base.source_type,
        citation_label=citation_label.strip(),
        last_updated=last_updated,
    )


def documents_upload(*, workspace: Workspace, uploads: Sequence[UploadedFile],
                     metadata: dict | None = None, user=None,
                     per_file: dict[str, dict] | None = None) -> list[Document]:
    """Check every file, stage them and queue their ingest; returns one Document per
    file: new ones pending, a file name already in the workspace its existing document
    (replaced or kept by the ingest, as ``document_ingest`` decides).

    ``metadata``: keyword arguments of :func:`metadata_for` shared by all the files
    (a title is used only for a single file). ``per_file`` (optional): per file name
    as uploaded, keyword arguments of :func:`metadata_for` that override the shared
    ones for that file (a title included). Raises ``ValidationError`` listing every
    bad file before anything is staged or written, and ``PermissionDenied`` when
    ``user``'s role may not upload (``ciq.permissions``; None: an operator's command).
    """
    permission_require(user=user, workspace=workspace, action=Action.UPLOAD)
    metadata = dict(metadata or {})
    if len(uploads) > 1:
        metadata.pop("title", None)
    errors = []
    for upload in uploads:
        try:
            upload_check(upload)
        except ValidationError as exc:
            errors.extend(exc.messages)
    if not uploads:
        errors.append("Choose at least one file.")
    if errors:
        raise ValidationError(errors)
    quota_check(workspace=workspace, uploads=uploads)

    documents = []
    staged_folders: list[Path] = []
    try:
        with transaction.atomic():
            for upload in uploads:
                name = upload_file_name(upload.name)
                own = (per_file or {}).get(PurePath(upload.name or "").name, {})
                meta = metadata_for(name, **{**metadata, **own})
                key = upload_source_path(name)
                document = Document.objects.filter(workspace=workspace, source_path=key).first()
                if document is None:
                    document = Document(workspace=workspace, source_path=key, sha256="",
                                        size_bytes=upload.size, status=Document.Status.PENDING,
                                        **_fields(meta))
                    document.full_clean(exclude=["file", "sha256"])
                    document.save()
                staged = _stage(upload, name)
                staged_folders.append(staged.parent)
                _enqueue_on_commit(document.pk, staged, meta)
                documents.append(document)
    except BaseException:
        # Nothing was queued (the transaction rolled back): no staged file may stay behind.
        for folder in staged_folders:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    return documents


def quota_check(*, workspace: Workspace, uploads: Sequence[UploadedFile]) -> None:
    """Refuse uploads that would take ``workspace`` over ``WORKSPACE_MAX_DOCUMENTS``
    documents or ``WORKSPACE_MAX_BYTES`` bytes of files (a file uploaded again under a
    known name counts as its new size in place of the old one, and not as a new
    document). Raises ``ValidationError`` saying which quota and by how much."""
    sizes: dict[str, int] = {}
    for upload in uploads:
        sizes[upload_source_path(upload_file_name(upload.name))] = upload.size or 0
    documents = Document.objects.filter(workspace=workspace)
    replaced = dict(documents.filter(source_path__in=sizes).values_list("source_path", "size_bytes"))
    count = documents.count() + sum(1 for key in sizes if key not in replaced)
    stored = documents.aggregate(total=Sum("size_bytes"))["total"] or 0
    total = stored + sum(size - replaced.get(key, 0) for key, size in sizes.items())
    errors = []
    if count > settings.WORKSPACE_MAX_DOCUMENTS:
        errors.append(
            f"Workspace quota: this upload would make {count:,} documents in "
            f"“{workspace.name}”, over the {settings.WORKSPACE_MAX_DOCUMENTS:,} allowed "
            "(WORKSPACE_MAX_DOCUMENTS); delete documents or ask an administrator.")
    if total > settings.WORKSPACE_MAX_BYTES and total > stored:
        shown, allowed = sizes_shown(total, settings.WORKSPACE_MAX_BYTES)
        errors.append(
            f"Workspace quota: this upload would make {shown} of files in "
            f"“{workspace.name}”, over the {allowed} allowed "
            "(WORKSPACE_MAX_BYTES); delete documents or ask an administrator.")
    if errors:
        raise ValidationError(errors)


# File systems limit a name to 255 bytes; a long non-ASCII name (3 bytes a character in
# UTF-8) passes that long before 255 characters. Keep a margin under it.
MAX_NAME_BYTES = 200


def upload_file_name(raw: str | None) -> str:
    """A safe file name for a staged upload: Django's valid-name cleaning, then the stem
    shortened (by whole characters) so the name fits ``MAX_NAME_BYTES`` in UTF-8, the
    suffix kept."""
    name = get_valid_filename(PurePath(raw or "file").name)
    suffix = PurePath(name).suffix
    stem = name[: len(name) - len(suffix)] if suffix else name
    budget = MAX_NAME_BYTES - len(suffix.encode("utf-8"))
    while len(stem.encode("utf-8")) > budget:
        stem = stem[:-1]
    return (stem or "file") + suffix


def _fields(meta: DocumentMetadata) -> dict:
    return {f.name: getattr(meta, f.name) for f in dataclasses.fields(meta)}


def _stage(upload: UploadedFile, name: str) -> Path:
    folder = Path(settings.MEDIA_ROOT) / "uploads" / uuid.uuid4().hex
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with path.open("wb") as out:
        for block in upload.chunks():
            out.write(block)
    return path


def _enqueue_on_commit(document_id: int, staged: Path, meta: DocumentMetadata) -> None:
    from retrieval.tasks import document_ingest_task

    payload = _fields(meta)
    payload["last_updated"] = meta.last_updated.isoformat() if meta.last_updated else None
    transaction.on_commit(
        lambda: document_ingest_task.enqueue(document_id, str(staged), payload)
    )
