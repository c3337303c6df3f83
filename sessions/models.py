"""Research sessions, their turns, revisions and the append-only event log (DESIGN.md §3)."""

from django.conf import settings
from django.db import models

from ciq.models import Workspace
from verification.models import Outcome  # noqa: F401  (the turn's outcome; re-exported)


class Mode(models.TextChoices):
    ANSWER = "answer", "Answer"
    DRAFT = "draft", "Draft"


class VerificationMode(models.TextChoices):
    STRICT = "strict", "Strict"
    HELPFUL = "helpful", "Helpful"


class RunStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    PROCESSING = "processing", "Processing"
    COMPLETED = "completed", "Completed"
    ERROR = "error", "Error"
    # Stopped on a member's request (``sessions.services.turn_cancel``); what the run
    # completed before (events, trace) is kept.
    CANCELLED = "cancelled", "Cancelled"


class ResearchSession(models.Model):
    """A conversation of one user in one workspace: one or more turns."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sessions")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="research_sessions",
    )
    title = models.CharField(max_length=300)
    mode = models.CharField(max_length=6, choices=Mode.choices, default=Mode.ANSWER)
    verification_mode = models.CharField(
        max_length=7, choices=VerificationMode.choices, default=VerificationMode.STRICT
    )
    jurisdictions = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.PENDING)
    created = models.DateTimeField(auto_now_add=True)
    completed = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["workspace", "-created"])]

    def __str__(self) -> str:
        return self.title


class Turn(models.Model):
    """One question and its verified answer: one run of the pipeline (DESIGN.md §1)."""

    session = models.ForeignKey(ResearchSession, on_delete=models.CASCADE, related_name="turns")
    index = models.PositiveIntegerField()
    question = models.TextField()
    # Who asked this turn: the session's owner, or a colleague's follow-up (None for
    # turns asked from the command line without --user, and turns older than the field).
    asked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+")
    # When recovery queued the run again after its first task was lost
    # (``sessions.recovery.runs_recover``): a second loss ends the turn in error.
    requeued_at = models.DateTimeField(null=True, blank=True)
    # When a member asked to stop the running turn: the run stops at its next checkpoint
    # (``sessions.pipeline.TurnRun.checkpoint``).
    cancel_requested_at = models.DateTimeField(null=True, blank=True)
    answer_markdown = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.PENDING)
    outcome = models.CharField(
        max_length=12, choices=Outcome.choices, blank=True,
        help_text="Answered, partially answered or not answered; empty until the run ends.",
    )
    answerability = models.JSONField(
        default=dict, blank=True,
        help_text="The question analysis (kind, facets, places) and per-facet coverage.",
    )
    error = models.TextField(blank=True)
    sources = models.JSONField(
        default=list, blank=True,
        help_text="Snapshot of the retrieved context: one object per chunk, in rank order.",
    )
    retrieval_confidence = models.JSONField(default=dict, blank=True)
    claim_confidence = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    working_memory = models.JSONField(default=dict, blank=True)
    suggested_followups = models.JSONField(default=list, blank=True)
    assumptions = models.JSONField(default=list, blank=True)
    limitations = models.JSONField(default=list, blank=True)
    permits = models.JSONField(
        default=list, blank=True,
        help_text='The "Required permits and licenses" items: [{"name", "agency", '
                  '"jurisdiction", "link", "reference", "chunk_ids"}, ...].',
    )
    synthesis = models.JSONField(
        default=dict, blank=True,
        help_text="Two-lane synthesis fields of a model Writer: used_statewide, "
                  "statewide_reason, applicability_check (empty otherwise).",
    )
    # The session log's head when the turn ended: an anchor that shows truncation or a
    # rewrite of the log up to here (sessions.events.event_chain_verify).
    log_seq = models.PositiveIntegerField(null=True, blank=True)
    log_hash = models.CharField(max_length=64, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    completed = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "index"]
        constraints = [
            models.UniqueConstraint(fields=["session", "index"], name="unique_turn_index"),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.index}: {self.question[:60]}"


class RevisionAuthor(models.TextChoices):
    """Who wrote a revision: the Writer (cycles 0, 1, …) or the Critic (the last one,
    when it changed the text; ``sessions.critic``)."""

    WRITER = "writer", "Writer"
    CRITIC = "critic", "Critic"


class Revision(models.Model):
    """One revision cycle of a turn's text, with its evidence coverage in [0, 1]. A
    Critic revision lists its ``edits`` ([{action, sentence, before, after, reason,
    target}], ``sessions.critic.CriticEdit``) and how they were made (``critic_by``:
    "rules" or "model")."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="revisions")
    cycle = models.PositiveIntegerField()
    text = models.TextField()
    coverage = models.FloatField(default=0.0)
    author = models.CharField(max_length=6, choices=RevisionAuthor.choices,
                              default=RevisionAuthor.WRITER)
    edits = models.JSONField(default=list, blank=True)
    critic_by = models.CharField(max_length=5, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["turn", "cycle"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "cycle"], name="unique_revision_cycle"),
        ]

    def __str__(self) -> str:
        return f"{self.turn_id} cycle {self.cycle} ({self.coverage:.0%})"


class EventType(models.TextChoices):
    """Event types of DESIGN.md §4."""

    SESSION_CREATED = "session_created"
    RETRIEVAL_COMPLETED = "retrieval_completed"
    REASONING_THOUGHT = "reasoning_thought"
    REASONING_ACTION = "reasoning_action"
    REASONING_OBSERVATION = "reasoning_observation"
    REASONING_CONCLUSION = "reasoning_conclusion"
    CONTENT_CHUNK = "content_chunk"
    CITATION_DETECTED = "citation_detected"
    CLAIM_EXTRACTED = "claim_extracted"
    CLAIM_VERIFIED = "claim_verified"
    LEDGER_UPDATED = "ledger_updated"
    REVISION_STARTED = "revision_started"
    CONFIDENCE_CALCULATED = "confidence_calculated"
    GENERATION_COMPLETE = "generation_complete"
    ERROR = "error"
    # Written once a turn has ended (completed or error): a digest of the turn's stored
    # record, so the hash chain covers the answer and ledger too (sessions/audit.py).
    TURN_SEALED = "turn_sealed"
    # One edit of the Critic (sessions/critic.py): {action, sentence, before, after,
    # reason, target, cycle, turn, by}.
    CRITIC_EDIT = "critic_edit"


class SessionEvent(models.Model):
    """Append-only event log: ``seq`` is dense per session (1, 2, 3, ...) and
    ``hash = sha256(previous hash + canonical JSON)``, so an auditor can prove the log
    was not edited (DESIGN.md §3). Written only by ``sessions.events.EventLog.emit``.
    """

    session = models.ForeignKey(ResearchSession, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32, choices=EventType.choices)
    payload = models.JSONField(default=dict)
    created = models.DateTimeField()
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["session", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["session", "seq"], name="unique_event_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.seq} {self.type}"
