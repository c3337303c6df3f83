"""What an unfinished turn is doing, in words a user can act on (issue 14, "honest run
states"): queued (with its place in the queue, and "waiting for a worker" once no worker
has taken it for ``WORKER_WAIT_SECONDS``), running (stage and elapsed time, or
cancelling), and for an ended turn its status and the failure in words.

Stalled runs are found by the periodic ``manage.py recover`` (``sessions.recovery``),
which ends them with an ``error`` event that reaches open pages live; this module only
reads.
"""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from sessions.models import EventType, RunStatus, SessionEvent, Turn

# A worker polls the queue every 0.25 s (Procfile), so a run nobody took for this long
# means no worker is running or all are busy.
WORKER_WAIT_SECONDS = 5

STAGES = {
    "setup": "Starting",
    "plan": "Analysing the question",
    "retrieve": "Searching the documents",
    "write": "Writing the answer",
    "verify": "Checking each claim against its evidence",
    "revise": "Revising unsupported claims",
    "critique": "Tightening the draft (Critic)",
    "conclude": "Deciding whether the question is answered",
}
EVENT_STAGES = {
    EventType.RETRIEVAL_COMPLETED: "write",
    EventType.CONTENT_CHUNK: "write",
    EventType.CITATION_DETECTED: "write",
    EventType.CLAIM_EXTRACTED: "verify",
    EventType.CLAIM_VERIFIED: "verify",
    EventType.LEDGER_UPDATED: "verify",
    EventType.REVISION_STARTED: "revise",
    EventType.CRITIC_EDIT: "critique",
    EventType.CONFIDENCE_CALCULATED: "conclude",
}
# Error codes of ``error`` events in words (``sessions.pipeline``, ``sessions.recovery``,
# ``ciq.llm.base.LLMError``, ``verification.services``).
ERROR_WORDS = {
    "stalled": "The run stopped without finishing: its worker stopped or lost it.",
    "cancelled": "Cancelled: the run was stopped on request; what it completed is kept.",
    "internal_error": "An internal error stopped the run; the details are in the server log.",
    "model_timeout": "The model provider did not answer in time.",
    "model_rate_limited": "The model provider refused more requests for now (rate limit).",
    "model_unavailable": "The model provider is unavailable (a server error on its side).",
    "model_rejected": "The model provider rejected the request (check the key and model name).",
    "model_unreachable": "The model provider could not be reached (network).",
    "model_bad_output": "The model's answer could not be read, even after one repair attempt.",
    "bad_backend_output": "A verification backend returned output CIQ could not read.",
}


def run_state(*, turn: Turn, now: dt.datetime | None = None) -> dict:
    """The state of ``turn`` for the session page and its poll endpoint.

    Returns ``{"status", "text", "elapsed_s", "stage", "position", "waiting_for_worker",
    "cancelling", "error_code", "error_words", "ended"}``: ``text`` is the one line the
    page shows beside the elapsed time; ``elapsed_s`` (seconds, one decimal) counts from
    the turn's creation (or requeue) while queued and from its first event while running; ``position`` is the
    turn's 1-based place among all queued runs (runs of every workspace share the
    workers, so it is a count only, never whose runs they are); ``stage`` is a key of
    :data:`STAGES`. Two or three queries.
    """
    now = now or timezone.now()
    state = {"status": turn.status, "stage": None, "position": None, "waiting_for_worker": False,
             "cancelling": turn.cancel_requested_at is not None, "elapsed_s": None,
             "error_code": "", "error_words": "", "ended": turn.status not in
             (RunStatus.PENDING, RunStatus.PROCESSING)}
    events = _turn_events(turn)
    if turn.status == RunStatus.PENDING:
        since = turn.requeued_at or turn.created
        waited = (now - since).total_seconds()
        position = Turn.objects.filter(status=RunStatus.PENDING, created__lt=turn.created).count() + 1
        state.update(position=position, elapsed_s=round(waited, 1),
                     waiting_for_worker=waited >= WORKER_WAIT_SECONDS)
        state["text"] = (f"Queued (position {position}). Waiting for a worker: none has taken "
                         "this run yet; if this lasts, no worker is running (`manage.py db_worker`)."
                         if state["waiting_for_worker"] else f"Queued (position {position}).")
        return state
    if turn.status == RunStatus.PROCESSING:
        started = events[0].created if events else turn.created
        stage = _stage(events)
        state.update(stage=stage, elapsed_s=round((now - started).total_seconds(), 1))
        state["text"] = (f"Cancelling: the run stops at its next step ({STAGES[stage].lower()})."
                         if state["cancelling"] else f"Running: {STAGES[stage]}…")
        return state
    errors = [e for e in events if e.type == EventType.ERROR]
    code = (errors[-1].payload.get("code") if errors else "") or ""
    state.update(error_code=code, error_words=ERROR_WORDS.get(code, ""))
    state["text"] = {RunStatus.COMPLETED: "Finished.",
                     RunStatus.CANCELLED: ERROR_WORDS["cancelled"]}.get(
        turn.status, state["error_words"] or "The run ended with an error.")
    return state


def _turn_events(turn: Turn) -> list[SessionEvent]:
    """The turn's events: those after the previous turn's log head (ended turns record
    it), filtered by their ``turn`` payload."""
    previous = (Turn.objects.filter(session_id=turn.session_id, index__lt=turn.index)
                .order_by("-index").values_list("log_seq", flat=True).first()) or 0
    events = SessionEvent.objects.filter(session_id=turn.session_id, seq__gt=previous).order_by("seq")
    return [e for e in events if e.payload.get("turn") == turn.index]


def _stage(events: list[SessionEvent]) -> str:
    """The stage of the last event that names or implies one (``plan`` before any)."""
    for event in reversed(events):
        stage = event.payload.get("stage")
        if stage in STAGES:
            return stage
        if event.type in EVENT_STAGES:
            return EVENT_STAGES[event.type]
    return "plan"
