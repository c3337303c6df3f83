"""Recovery of runs that stopped without finishing (a worker killed mid-run, a task
lost): such turns would stay ``pending`` or ``processing`` for ever. A periodic job,
``manage.py recover --every 60`` (the ``recover`` process of the Procfile), calls
:func:`runs_recover`, never a page read:

- a **pending** turn that no worker took within the stall timeout is queued once more
  (``Turn.requeued_at``; ``turn_run_task`` claims a turn once, so a duplicate is harmless);
- a turn still unfinished after that, or one that stopped while **processing** (its
  worker died mid-run), ends in error with an ``error`` event (code ``stalled``) like any
  other failure, keeping what the run completed. A run that died mid-way is not run
  again: its events are already in the session's log, and a second run would repeat
  them under the same turn.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from sessions.audit import turn_seal
from sessions.events import EventLog
from sessions.models import EventType, ResearchSession, RunStatus, Turn

logger = logging.getLogger(__name__)

UNFINISHED = (RunStatus.PENDING, RunStatus.PROCESSING)


def stall_timeout() -> dt.timedelta:
    """How long a run may go without writing an event before it counts as stalled:
    ``settings.STALLED_TURN_MINUTES`` (default 10 minutes; a model-backed Writer
    streams and every claim verdict is an event, so a live run writes far more often)."""
    return dt.timedelta(minutes=settings.STALLED_TURN_MINUTES)


def turns_stalled_fail(*, session: ResearchSession, now: dt.datetime | None = None,
                       timeout: dt.timedelta | None = None) -> list[Turn]:
    """End the session's unfinished turns when neither the session's last event nor the
    turn's creation is more recent than ``timeout`` (default :func:`stall_timeout`).

    Each ended turn gets an ``error`` event (code ``stalled``), status ``error`` with
    the reason in ``Turn.error``, and the log head; the session's status becomes
    ``error``, and the turn is sealed (``sessions.audit.turn_seal``). What the run
    completed before (events, revisions, claims) stays.
    Returns the ended turns (empty when nothing was stalled). Safe to call
    concurrently: a turn is ended by the caller whose status update wins.
    """
    now = now or timezone.now()
    timeout = timeout or stall_timeout()
    if not _stalled(session, now, timeout):
        return []
    unfinished = list(session.turns.filter(status__in=UNFINISHED).order_by("index"))
    minutes = round(timeout.total_seconds() / 60)
    message = (f"The run stopped without finishing (no progress for {minutes} minute(s)); "
               "ask the question again.")
    ended = []
    for turn in unfinished:
        with transaction.atomic():
            won = Turn.objects.filter(pk=turn.pk, status__in=UNFINISHED).update(
                status=RunStatus.ERROR, error=message, completed=now
            )
            if not won:
                continue
            event = EventLog(session).emit(EventType.ERROR, message=message, code="stalled",
                                           stage="worker", turn=turn.index)
            Turn.objects.filter(pk=turn.pk).update(log_seq=event.seq, log_hash=event.hash)
            ResearchSession.objects.filter(pk=session.pk).update(
                status=RunStatus.ERROR, completed=now
            )
        turn_seal(turn=turn)
        ended.append(turn)
    return ended


def runs_recover(*, now: dt.datetime | None = None, timeout: dt.timedelta | None = None) -> dict[str, int]:
    """Recover every workspace's stalled runs (see the module docstring); returns
    ``{"requeued": n, "failed": n}``. One query finds the sessions with unfinished
    turns; each stalled one costs a few queries. Never raises for one session's failure
    (it is logged and the others go on)."""
    from sessions.tasks import turn_run_task  # the task module imports the pipeline

    now = now or timezone.now()
    timeout = timeout or stall_timeout()
    counts = {"requeued": 0, "failed": 0}
    sessions = ResearchSession.objects.filter(turns__status__in=UNFINISHED).distinct()
    for session in sessions:
        try:
            if not _stalled(session, now, timeout):
                continue
            fresh = list(session.turns.filter(status=RunStatus.PENDING, requeued_at=None))
            if fresh:
                for turn in fresh:
                    if Turn.objects.filter(pk=turn.pk, status=RunStatus.PENDING, requeued_at=None) \
                            .update(requeued_at=now):
                        turn_run_task.enqueue(turn.pk)
                        counts["requeued"] += 1
                continue
            counts["failed"] += len(turns_stalled_fail(session=session, now=now, timeout=timeout))
        except Exception:
            logger.exception("recovery of session %s failed", session.pk)
    return counts


def _stalled(session: ResearchSession, now: dt.datetime, timeout: dt.timedelta) -> bool:
    """Whether neither the session's last event nor any unfinished turn's creation (or
    requeue) is more recent than ``timeout``."""
    unfinished = [requeued or created for created, requeued in
                  session.turns.filter(status__in=UNFINISHED).values_list("created", "requeued_at")]
    if not unfinished:
        return False
    last_event = session.events.order_by("-seq").values_list("created", flat=True).first()
    return now - max(unfinished + ([last_event] if last_event else [])) >= timeout
