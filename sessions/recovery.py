"""Recovery of runs that stopped without finishing (a worker killed mid-run, a queue
with no worker): such turns stay ``pending`` or ``processing`` for ever unless someone
ends them. Pages and the websocket consumer call :func:`turns_stalled_fail` for the
session they show, so a stalled run ends with an ``error`` event like any other failure.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from sessions.audit import turn_seal
from sessions.events import EventLog
from sessions.models import EventType, ResearchSession, RunStatus, Turn

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
    unfinished = list(session.turns.filter(status__in=UNFINISHED).order_by("index"))
    if not unfinished:
        return []
    last_event = session.events.order_by("-seq").values_list("created", flat=True).first()
    latest = max([t.created for t in unfinished] + ([last_event] if last_event else []))
    if now - latest < timeout:
        return []
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
