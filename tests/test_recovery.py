"""Recovery of runs and ingests whose worker died, by the periodic ``manage.py recover``
(issue 11): a lost task is queued once more, a second loss ends in a clear error, and
nothing completed is lost."""

import datetime as dt
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from retrieval.models import Document
from retrieval.recovery import INGEST_TASK, STOPPED_TWICE, WORKER_DIED, ingests_recover
from retrieval.uploads import documents_upload
from sessions.models import EventType, RunStatus, Turn
from sessions.recovery import runs_recover
from sessions.services import session_create

pytestmark = pytest.mark.django_db

QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"
LATER = dt.timedelta(minutes=11)


def test_a_lost_pending_run_is_queued_once_more_and_runs(demo_workspace, owner):
    turn = session_create(workspace=demo_workspace, user=owner, question=QUESTION)  # never queued
    assert runs_recover() == {"requeued": 0, "failed": 0}  # fresh: not stalled yet
    counts = runs_recover(now=timezone.now() + LATER)  # the immediate task backend runs it now
    turn.refresh_from_db()
    assert counts == {"requeued": 1, "failed": 0}
    assert turn.status == RunStatus.COMPLETED and turn.requeued_at is not None and turn.answer_markdown


def test_a_run_lost_twice_or_killed_mid_run_ends_in_error_keeping_its_events(demo_workspace, owner):
    requeued = session_create(workspace=demo_workspace, user=owner, question=QUESTION)
    Turn.objects.filter(pk=requeued.pk).update(requeued_at=timezone.now())
    killed = session_create(workspace=demo_workspace, user=owner, question="Docks?")
    Turn.objects.filter(pk=killed.pk).update(status=RunStatus.PROCESSING)
    events_before = killed.session.events.count()
    counts = runs_recover(now=timezone.now() + LATER)
    assert counts == {"requeued": 0, "failed": 2}
    for turn in (requeued, killed):
        turn.refresh_from_db()
        assert turn.status == RunStatus.ERROR and "stopped without finishing" in turn.error
    kinds = list(killed.session.events.order_by("seq").values_list("type", flat=True))
    assert len(kinds) == events_before + 2 and kinds[-2:] == [EventType.ERROR, EventType.TURN_SEALED]
    assert runs_recover(now=timezone.now() + LATER) == {"requeued": 0, "failed": 0}  # once only


def staged_upload(workspace, samples_dir) -> tuple[Document, Path]:
    """A pending upload whose ingest task never ran (the transaction is not committed in
    a test, so nothing was queued) and its staged file."""
    docks = samples_dir / "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"
    upload = SimpleUploadedFile("docks-copy.md", docks.read_bytes() + b"\n\nA copy for the recovery test.")
    document = documents_upload(workspace=workspace, uploads=[upload])[0]
    staged = max((Path(settings.MEDIA_ROOT) / "uploads").glob("*/docks-copy.md"),
                 key=lambda p: p.stat().st_mtime)
    return document, staged


def dead_task(document: Document, staged: Path, *, minutes: int = 30) -> DBTaskResult:
    """The row a worker that died while ingesting leaves behind: RUNNING for ever."""
    return DBTaskResult.objects.create(
        task_path=INGEST_TASK, status=TaskResultStatus.RUNNING, queue_name="ingest",
        backend_name="default", priority=0, run_after=timezone.now(),
        started_at=timezone.now() - dt.timedelta(minutes=minutes),
        args_kwargs={"args": [document.pk, str(staged), {"title": "Docks copy"}], "kwargs": {}},
    )


def test_an_ingest_whose_worker_died_is_queued_once_more(demo_workspace, samples_dir):
    document, staged = staged_upload(demo_workspace, samples_dir)
    row = dead_task(document, staged)
    dead_task(document, staged, minutes=1)  # still within the time a live worker may take
    assert ingests_recover() == {"requeued": 1, "failed": 0}
    row.refresh_from_db()
    document.refresh_from_db()
    assert row.status == TaskResultStatus.FAILED and row.exception_class_path == WORKER_DIED
    assert document.status == Document.Status.READY and document.chunks.exists()
    assert not staged.exists()


def test_an_ingest_lost_twice_fails_the_document_with_a_clear_error(demo_workspace, samples_dir):
    document, staged = staged_upload(demo_workspace, samples_dir)
    first = dead_task(document, staged)
    DBTaskResult.objects.filter(pk=first.pk).update(status=TaskResultStatus.FAILED,
                                                   exception_class_path=WORKER_DIED)
    dead_task(document, staged)
    out = StringIO()
    call_command("recover", stdout=out)
    document.refresh_from_db()
    assert document.status == Document.Status.FAILED
    assert document.error == f"{STOPPED_TWICE} (docks-copy.md)"
    assert not staged.parent.exists()
    assert "ingests: 0 requeued, 1 failed" in out.getvalue()
    shutil.rmtree(staged.parent, ignore_errors=True)
