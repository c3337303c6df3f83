"""Writes started from the web workbench: new sessions and follow-up turns.

Both validate through the sessions services and queue the run on commit
(``sessions.services.turn_start``); the caller gets the pending turn back.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from ciq.models import Workspace
from sessions.models import ResearchSession, RunStatus, Turn
from sessions.services import session_create, turn_create, turn_start


def ask_start(*, workspace: Workspace, user, question: str, mode: str,
              verification_mode: str, jurisdictions: Sequence[str]) -> Turn:
    """Create a session with its first turn and queue its run.

    Raises ``ValidationError`` (keyed ``question``, ``mode``, ``verification_mode`` or
    ``jurisdictions``) for bad input; nothing is written then.
    """
    with transaction.atomic():
        turn = session_create(
            workspace=workspace, user=user, question=question, mode=mode,
            verification_mode=verification_mode, jurisdictions=jurisdictions,
        )
        turn_start(turn)
    return turn


def followup_start(*, session: ResearchSession, question: str) -> Turn:
    """Add a follow-up turn to ``session`` and queue its run (the pipeline merges the
    earlier turns' context).

    Raises ``ValidationError`` keyed ``question`` for a bad question, or while another
    turn of the session is pending or running (one run writes a session's log at a time).
    """
    with transaction.atomic():
        running = session.turns.filter(status__in=[RunStatus.PENDING, RunStatus.PROCESSING])
        if running.exists():
            raise ValidationError({"question": (
                "A turn is still running in this session; ask the follow-up when it has finished."
            )})
        turn = turn_create(session=session, question=question)
        turn_start(turn)
    return turn
