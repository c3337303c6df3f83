"""Recovery of uploads whose ingest worker died (issue 11): without it the document
stays ``pending`` for ever and its staged file stays on disk.

A worker never holds one file longer than ``INGEST_TIMEOUT_SECONDS`` (the child process
that parses it is killed then, ``retrieval.sandbox``), so an ingest task still
``RUNNING`` after :func:`ingest_stall_timeout` lost its worker. :func:`ingests_recover`
(run by ``manage.py recover``, never by a page read) marks that task failed and queues
the file once more; when the same staged file is lost a second time, the document is
marked failed with a message saying so (a ready document keeps its good version) and
the staged copy is removed. Tasks that wait in the queue (``READY``) are left alone: a
backlog is not a failure.
"""

from __future__ import annotations

import datetime as dt
import logging
import shutil
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from retrieval.models import Document

logger = logging.getLogger(__name__)

INGEST_TASK = "retrieval.tasks.document_ingest_task"
WORKER_DIED = "retrieval.recovery.WorkerDied"
STOPPED_TWICE = "ingestion stopped twice without finishing (its worker died); upload the file again"


def ingest_stall_timeout() -> dt.timedelta:
    """How long an ingest task may run before its worker counts as dead:
    ``INGEST_STALL_SECONDS`` (default twice ``INGEST_TIMEOUT_SECONDS`` plus a minute for
    writing the chunks)."""
    return dt.timedelta(seconds=settings.INGEST_STALL_SECONDS)


def ingests_recover(*, now: dt.datetime | None = None, timeout: dt.timedelta | None = None) -> dict[str, int]:
    """Requeue or fail the ingests whose worker died; ``{"requeued": n, "failed": n}``.
    Safe to run from several processes at once (a task row is taken by one update)."""
    from retrieval.tasks import document_ingest_task

    now = now or timezone.now()
    timeout = timeout or ingest_stall_timeout()
    counts = {"requeued": 0, "failed": 0}
    dead = DBTaskResult.objects.filter(task_path=INGEST_TASK, status=TaskResultStatus.RUNNING,
                                       started_at__lt=now - timeout)
    for row in dead:
        taken = DBTaskResult.objects.filter(pk=row.pk, status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.FAILED, finished_at=now, exception_class_path=WORKER_DIED,
            traceback="The worker stopped while ingesting this file (recovered by manage.py recover).")
        if not taken:
            continue
        args, kwargs = row.args_kwargs.get("args", []), row.args_kwargs.get("kwargs", {})
        document_id, staged = args[0], Path(args[1])
        lost_before = DBTaskResult.objects.filter(
            task_path=INGEST_TASK, exception_class_path=WORKER_DIED, args_kwargs__args__1=str(staged),
        ).exclude(pk=row.pk).exists()
        try:
            if staged.exists() and not lost_before:
                document_ingest_task.enqueue(*args, **kwargs)
                counts["requeued"] += 1
            else:
                _fail(document_id, staged)
                counts["failed"] += 1
        except Exception:
            logger.exception("recovery of the ingest of document %s failed", document_id)
    return counts


def _fail(document_id: int, staged: Path) -> None:
    """Say on the document that its ingestion was lost twice, and drop the staged copy."""
    document = Document.objects.filter(pk=document_id).first()
    if document is not None and document.status == Document.Status.READY:
        Document.objects.filter(pk=document_id).update(
            error=f"new version not loaded, the previous one is kept: {STOPPED_TWICE}")
    elif document is not None:
        Document.objects.filter(pk=document_id).update(
            status=Document.Status.FAILED, error=f"{STOPPED_TWICE} ({staged.name})")
    shutil.rmtree(staged.parent, ignore_errors=True)
