"""Session and turn writes: create, validate input, run (STYLE.md: services)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from ciq.models import Workspace
from ciq.permissions import Action, permission_require
from retrieval.selectors import jurisdictions_known
from sessions.events import EventLog
from sessions.models import EventType, Mode, ResearchSession, RunStatus, Turn, VerificationMode
from sessions.pipeline import turn_run

JURISDICTION_RE = re.compile(r"^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$")


def question_clean(question: str) -> str:
    """The question with surrounding whitespace removed.

    Raises ``ValidationError`` when it is empty or longer than ``MAX_QUESTION_CHARS``
    characters (the message gives both lengths).
    """
    question = (question or "").strip()
    if not question:
        raise ValidationError({"question": "The question is empty."})
    if len(question) > settings.MAX_QUESTION_CHARS:
        raise ValidationError({"question": (
            f"The question is {len(question):,} characters long; the limit is "
            f"{settings.MAX_QUESTION_CHARS:,}. Shorten it or ask in parts."
        )})
    return question


def jurisdictions_clean(*, workspace: Workspace, jurisdictions: Sequence[str]) -> list[str]:
    """Deduplicated target codes, each known to the workspace.

    A code is known when a document of the workspace has it, or has a code below it
    (``US-OR`` is known when ``US-OR-Rivergrove`` documents exist).
    Raises ``ValidationError`` naming the unknown codes and the known ones.
    """
    codes = list(dict.fromkeys(j.strip() for j in jurisdictions if j.strip()))
    bad = [c for c in codes if not JURISDICTION_RE.match(c)]
    if bad:
        raise ValidationError({"jurisdictions": f"Malformed jurisdiction code(s): {', '.join(bad)}."})
    known = jurisdictions_known(workspace=workspace)
    unknown = [c for c in codes if c not in known]
    if unknown:
        raise ValidationError({"jurisdictions": (
            f"Unknown jurisdiction(s) in workspace “{workspace.name}”: {', '.join(unknown)}. "
            f"Known: {', '.join(sorted(known)) or 'none (load documents first)'}."
        )})
    return codes


@transaction.atomic
def session_create(
    *,
    workspace: Workspace,
    question: str,
    user=None,
    mode: str = Mode.ANSWER,
    verification_mode: str = VerificationMode.STRICT,
    jurisdictions: Sequence[str] = (),
) -> Turn:
    """Create a session with its first (pending) turn and its ``session_created`` event.

    Raises ``ValidationError`` for an empty or oversized question, an unknown mode or
    verification mode, or unknown jurisdictions, and ``PermissionDenied`` when ``user``'s
    role may not ask (``ciq.permissions``; ``user`` None: an operator's command); nothing
    is written then.
    """
    permission_require(user=user, workspace=workspace, action=Action.ASK)
    question = question_clean(question)
    if mode not in Mode.values:
        raise ValidationError({"mode": f"Unknown mode {mode!r}: use {' or '.join(Mode.values)}."})
    if verification_mode not in VerificationMode.values:
        raise ValidationError({"verification_mode": (
            f"Unknown verification mode {verification_mode!r}: use "
            f"{' or '.join(VerificationMode.values)}."
        )})
    codes = jurisdictions_clean(workspace=workspace, jurisdictions=jurisdictions)
    session = ResearchSession(
        workspace=workspace, user=user, title=question[:300], mode=mode,
        verification_mode=verification_mode, jurisdictions=codes,
    )
    session.full_clean()
    session.save()
    EventLog(session).emit(
        EventType.SESSION_CREATED, title=session.title, mode=mode,
        verification_mode=verification_mode, jurisdictions=codes, workspace=workspace.pk,
    )
    return Turn.objects.create(session=session, index=1, question=question, asked_by=user)


@transaction.atomic
def turn_create(*, session: ResearchSession, question: str, user=None) -> Turn:
    """Add a pending follow-up turn to ``session``, asked by ``user`` (a colleague's
    follow-up is recorded as theirs). Raises ``ValidationError`` for a bad question and
    ``PermissionDenied`` when ``user``'s role may not ask."""
    permission_require(user=user, workspace=session.workspace, action=Action.ASK)
    question = question_clean(question)
    last = session.turns.order_by("-index").values_list("index", flat=True).first() or 0
    return Turn.objects.create(session=session, index=last + 1, question=question, asked_by=user)


class TurnRunning(ValidationError):
    """A follow-up was asked while a turn of the session is still pending or running
    (one run writes a session's log at a time)."""

    def __init__(self):
        super().__init__({"question": (
            "A turn is still running in this session; ask the follow-up when it has finished."
        )}, code="turn_running")


def session_start(**kwargs) -> Turn:
    """Create a session (arguments of :func:`session_create`) and queue its first turn's
    run on commit; returns the pending turn. Raises ``ValidationError`` for bad input,
    with nothing written."""
    with transaction.atomic():
        return turn_start(session_create(**kwargs))


def followup_start(*, session: ResearchSession, question: str, user=None) -> Turn:
    """Add a follow-up turn to ``session`` and queue its run on commit (the pipeline
    merges the earlier turns' context); returns the pending turn.

    The session row is locked for the check, so two follow-ups at once cannot both
    start. ``user``: who asks (recorded on the turn; None: an operator's command). Raises
    :class:`TurnRunning` while another turn is pending or running, ``ValidationError``
    keyed ``question`` for a bad question, and ``PermissionDenied`` when ``user``'s role
    may not ask.
    """
    with transaction.atomic():
        session = ResearchSession.objects.select_for_update().get(pk=session.pk)
        if session.turns.filter(status__in=[RunStatus.PENDING, RunStatus.PROCESSING]).exists():
            raise TurnRunning()
        return turn_start(turn_create(session=session, question=question, user=user))


class TurnEnded(ValidationError):
    """Cancel was asked for a turn that is no longer pending or running."""

    def __init__(self, turn: Turn):
        super().__init__(f"Question {turn.index} has already ended ({turn.get_status_display().lower()}).",
                         code="turn_ended")


def turn_cancel(*, turn: Turn, user=None) -> Turn:
    """Stop ``turn``: a pending turn ends ``cancelled`` at once (a worker that takes it
    later skips it); a running one gets ``cancel_requested_at`` and its run stops at the
    next checkpoint (``sessions.pipeline.TurnRun.checkpoint``, within about
    ``CANCEL_POLL_SECONDS``), keeping what it completed. Returns the turn as stored.

    The pending case writes the ``error`` event (code ``cancelled``), the log head and
    the seal in one transaction with the status change. Raises ``PermissionDenied``
    when ``user``'s role may not ask in the workspace and :class:`TurnEnded` when the
    turn has already ended.
    """
    from sessions.audit import turn_seal

    session = turn.session
    permission_require(user=user, workspace=session.workspace, action=Action.ASK)
    now = timezone.now()
    who = f" by {user.get_username()}" if user is not None else ""
    with transaction.atomic():
        if Turn.objects.filter(pk=turn.pk, status=RunStatus.PENDING).update(
                status=RunStatus.CANCELLED, completed=now, cancel_requested_at=now,
                error=f"Cancelled{who} before a worker took it."):
            event = EventLog(session).emit(EventType.ERROR, code="cancelled", stage="queue",
                                           turn=turn.index,
                                           message=f"Cancelled{who} before a worker took it.")
            Turn.objects.filter(pk=turn.pk).update(log_seq=event.seq, log_hash=event.hash)
            ResearchSession.objects.filter(pk=session.pk).update(status=RunStatus.CANCELLED,
                                                                 completed=now)
            turn.refresh_from_db()
            turn_seal(turn=turn)
        elif not Turn.objects.filter(pk=turn.pk, status=RunStatus.PROCESSING).update(
                cancel_requested_at=now):
            turn.refresh_from_db()
            raise TurnEnded(turn)
    turn.refresh_from_db()
    return turn


def turn_retry(*, turn: Turn, user=None) -> Turn:
    """Ask an ended turn's question again as a new follow-up turn of its session (the
    Retry button of a failed or cancelled turn); returns the new pending turn. Raises as
    :func:`followup_start` does."""
    return followup_start(session=turn.session, question=turn.question, user=user)


def turn_start(turn: Turn) -> Turn:
    """Queue ``turn`` for the background worker once the caller's transaction commits.

    The run streams its events through the event log (DESIGN.md §4); callers return at
    once with the pending turn. With the immediate task backend (tests) the run happens
    on commit, in the caller's thread.
    """
    from sessions.tasks import turn_run_task  # the task module imports the pipeline

    transaction.on_commit(lambda: turn_run_task.enqueue(turn.pk))
    return turn


def session_ask(**kwargs) -> Turn:
    """Create a session (arguments of ``session_create``) and run its first turn now.

    Returns the turn, completed or in error. Raises ``ValidationError`` for bad input.
    """
    return turn_run(session_create(**kwargs))
