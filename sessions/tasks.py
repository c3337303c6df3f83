"""Background runs (django-tasks): a turn runs in the worker, not in the request."""

from __future__ import annotations

from django_tasks import task

from sessions.models import RunStatus, Turn
from sessions.pipeline import turn_run


@task()
def turn_run_task(turn_id: int) -> str:
    """Run one pending turn (``turn_run``); returns its final status, or ``"skipped"``
    when the turn is gone or no longer pending (ended as stalled by
    ``sessions.recovery`` while it waited, or already taken by another worker).
    """
    claimed = Turn.objects.filter(pk=turn_id, status=RunStatus.PENDING).update(
        status=RunStatus.PROCESSING
    )
    if not claimed:
        return "skipped"
    turn = Turn.objects.select_related("session", "session__workspace").get(pk=turn_id)
    return turn_run(turn).status
