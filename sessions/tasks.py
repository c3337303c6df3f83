"""Background runs (django-tasks): a turn runs in the worker, not in the request."""

from __future__ import annotations

from django_tasks import task

from sessions.models import Turn
from sessions.pipeline import turn_run


@task()
def turn_run_task(turn_id: int) -> str:
    """Run one pending turn (``turn_run``); returns its final status.

    Raises ``Turn.DoesNotExist`` when the turn was deleted before the worker reached it.
    """
    turn = Turn.objects.select_related("session", "session__workspace").get(pk=turn_id)
    return turn_run(turn).status
