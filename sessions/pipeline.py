"""The orchestrator: one run of the pipeline for one turn (DESIGN.md §1).

    plan → retrieve (two lanes) → write (streamed) → extract claims → verify → (revise) → ledger

Every step leaves a trace in the session's event log (DESIGN.md §4): reasoning events
(thought / action / observation / conclusion), the streamed content, the claims and
their verdicts. A failure at any step ends the turn with an ``error`` event and status
``error``; what was completed before stays stored.
"""

from __future__ import annotations

import logging
import re
import statistics
import time
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from ciq.roles import role_backend
from retrieval.confidence import retrieval_confidence
from retrieval.search import Budget, RetrievalResult, chunks_retrieve
from sessions.events import EventLog
from sessions.memory import WorkingMemory
from sessions.models import EventType, Mode, Revision, RunStatus, Turn
from sessions.writer import NOT_FOUND, WriteRequest, normalise_sentence
from verification.citations import cited_ids
from verification.judge import EvidenceChunk
from verification.scoring import COVERAGE_TARGET, ledger_metrics
from verification.services import VerifiedClaim, claim_verify, claims_summary, ledger_save

logger = logging.getLogger(__name__)

MAX_DRAFT_CYCLES = 2  # DESIGN.md §1: Draft revises while coverage < 85 % and cycle < 2
MAX_ANSWER_CYCLES = 1


@dataclass
class Cycle:
    """One written text and its verification."""

    number: int
    text: str
    verified: list[VerifiedClaim]
    metrics: dict
    revision: Revision


class TurnRun:
    """Runs one turn; ``run()`` returns the turn, completed or in error."""

    def __init__(self, turn: Turn):
        self.turn = turn
        self.session = turn.session
        self.started = time.perf_counter()
        self.first_delta_ms: float | None = None
        self.stage = "setup"

    # -- helpers -----------------------------------------------------------------------
    def elapsed_ms(self) -> float:
        """Milliseconds since the run started (one decimal)."""
        return round((time.perf_counter() - self.started) * 1000, 1)

    def reason(self, kind: EventType, text: str, **extra) -> None:
        """Append a reasoning-trace event (thought, action, observation or conclusion)."""
        self.log.emit(kind, stage=self.stage, text=text, elapsed_ms=self.elapsed_ms(),
                      turn=self.turn.index, **extra)

    # -- the run -------------------------------------------------------------------------
    def run(self) -> Turn:
        """Run the turn; never raises for a failure inside it (see ``_fail``)."""
        turn, session = self.turn, self.session
        try:
            Turn.objects.filter(pk=turn.pk).update(status=RunStatus.PROCESSING)
            type(session).objects.filter(pk=session.pk).update(status=RunStatus.PROCESSING)
            self.log = EventLog(session)
            self.writer = role_backend("writer")
            self.skeptic = role_backend("skeptic")
            self.judge = role_backend("judge")
            self.stage = "plan"
            self._run()
        except Exception as exc:  # every failure ends the turn visibly, never silently
            self._fail(exc)
        turn.refresh_from_db()
        return turn

    def _fail(self, exc: Exception) -> None:
        """Record a failure: an ``error`` event (when the log can still be written) and
        status ``error`` on the turn and session, whatever else goes wrong.

        Exceptions that carry a ``code`` (bad backend output, provider errors) are
        expected and shown as they are; any other is an internal error whose details
        go to the log and ``Turn.error`` but not into the client-facing event.
        """
        turn, session = self.turn, self.session
        detail = f"{self.stage}: {exc}"
        code = getattr(exc, "code", None)
        if code is None:
            code = "internal_error"
            logger.exception("Turn %s failed in stage %s", turn.pk, self.stage)
            message = f"{self.stage}: internal error ({type(exc).__name__})"
        else:
            message = detail
        try:
            # A fresh log: the failure may have been an event write (a concurrent run).
            EventLog(session).emit(EventType.ERROR, message=message, code=code,
                                   stage=self.stage, turn=turn.index)
        except Exception:
            logger.exception("Could not record the error event of turn %s", turn.pk)
        finally:
            now = timezone.now()
            Turn.objects.filter(pk=turn.pk).update(
                status=RunStatus.ERROR, error=detail, completed=now, **self._log_head()
            )
            type(session).objects.filter(pk=session.pk).update(
                status=RunStatus.ERROR, completed=now
            )

    def _log_head(self) -> dict:
        """The session log's head as the turn ends: an anchor against truncation."""
        last = self.session.events.order_by("-seq").values_list("seq", "hash").first()
        return {"log_seq": last[0], "log_hash": last[1]} if last else {}

    def _run(self) -> None:
        turn, session = self.turn, self.session
        memory = WorkingMemory(
            question=turn.question,
            jurisdictions=list(session.jurisdictions),
            previous_questions=list(
                session.turns.filter(index__lt=turn.index).values_list("question", flat=True)
            ),
        )
        goals = memory.plan()
        self.reason(EventType.REASONING_THOUGHT,
                    f"Planning: {len(goals)} sub-goal(s): " + "; ".join(goals), sub_goals=goals)

        # Retrieve.
        self.stage = "retrieve"
        scope = ", ".join(session.jurisdictions) or "all jurisdictions"
        self.reason(EventType.REASONING_ACTION,
                    f"Searching the local and statewide lanes ({scope}).")
        result = chunks_retrieve(
            turn.question, workspace=session.workspace, jurisdictions=session.jurisdictions,
            budget=Budget.for_mode(session.mode),
            extra_terms=" ".join(memory.previous_questions[-1:]),
        )
        self._record_retrieval(result, memory)

        # Write, verify, revise.
        self.stage = "write"
        request = WriteRequest(
            question=turn.question, mode=session.mode, chunks=result.chunks,
            jurisdictions=session.jurisdictions, term_weights=result.term_weights,
            context=memory.get_context(),
        )
        evidence = [EvidenceChunk(chunk_id=c.chunk_id, text=c.text) for c in result.chunks]
        chunk_pks = {c.chunk_id: c.chunk_pk for c in result.chunks}
        titles = {c.chunk_id: c for c in result.chunks}
        cycle = self._cycle(0, request, evidence, chunk_pks, titles)
        while self._should_revise(cycle, result):
            unsupported = [v for v in cycle.verified if not v.supported]
            self.stage = "revise"
            self.log.emit(EventType.REVISION_STARTED, cycle=cycle.number + 1, turn=turn.index,
                          reason=f"{len(unsupported)} claim(s) not supported; coverage "
                                 f"{cycle.metrics['evidence_coverage']:.0%}",
                          unsupported=[v.draft.text for v in unsupported])
            exclude = request.exclude | {normalise_sentence(v.draft.text) for v in unsupported}
            request = WriteRequest(**{**request.__dict__, "exclude": frozenset(exclude)})
            self.stage = "write"
            revised = self._cycle(cycle.number + 1, request, evidence, chunk_pks, titles)
            unchanged = revised.text == cycle.text
            cycle = revised  # the last stored revision is the turn's answer and ledger
            if unchanged:  # the Writer had nothing else to say
                break
        self._finish(cycle, result, memory)

    def _record_retrieval(self, result: RetrievalResult, memory: WorkingMemory) -> None:
        session = self.session
        for chunk in result.chunks:
            memory.gather(chunk_id=chunk.chunk_id, title=chunk.document_title,
                          note=chunk.heading or chunk.text[:120])
        found = {c.jurisdiction for c in result.chunks}
        for code in session.jurisdictions:
            if code not in found:
                memory.gap(f"No source of jurisdiction {code} matched the question.")
        self.log.emit(
            EventType.RETRIEVAL_COMPLETED, turn=self.turn.index, lanes=result.lanes,
            candidates=result.candidates, kept=len(result.chunks),
            chunks=[{"chunk_id": c.chunk_id, "title": c.document_title, "lane": c.lane,
                     "jurisdiction": c.jurisdiction, "score": c.score} for c in result.chunks],
        )
        lanes = result.lanes
        self.reason(
            EventType.REASONING_OBSERVATION,
            f"Kept {len(result.chunks)} of {result.candidates} chunk(s): "
            f"{lanes['local']['kept']} local, {lanes['state']['kept']} statewide.",
        )
        confidence = retrieval_confidence(result.chunks, session.jurisdictions)
        self.turn.retrieval_confidence = confidence.as_dict()
        self.turn.sources = [c.as_source() for c in result.chunks]
        self.turn.save(update_fields=["retrieval_confidence", "sources"])
        self.log.emit(EventType.CONFIDENCE_CALCULATED, kind="retrieval", turn=self.turn.index,
                      **confidence.as_dict())

    def _cycle(self, number, request, evidence, chunk_pks, titles) -> Cycle:
        turn = self.turn
        self.reason(EventType.REASONING_ACTION,
                    f"Writing {'a revision' if number else 'the answer'} from "
                    f"{len(request.chunks)} chunk(s).", cycle=number)
        text, numbers = "", {}
        for delta in self.writer.stream(request):
            if self.first_delta_ms is None:
                self.first_delta_ms = self.elapsed_ms()
            text += delta
            self.log.emit(EventType.CONTENT_CHUNK, delta=delta, full_content=text, cycle=number,
                          turn=turn.index)
            # Scan the text so far: a model may split a marker across two deltas.
            for chunk_id in cited_ids(text):
                if chunk_id not in numbers:
                    numbers[chunk_id] = len(numbers) + 1
                    source = titles.get(chunk_id)
                    self.log.emit(
                        EventType.CITATION_DETECTED, chunk_id=chunk_id, number=numbers[chunk_id],
                        cycle=number, turn=turn.index,
                        title=source.document_title if source else "",
                        citation_label=source.citation_label if source else "",
                        known=source is not None,
                    )

        self.stage = "verify"
        claims = self.skeptic.extract(text)
        for i, claim in enumerate(claims, 1):
            self.log.emit(EventType.CLAIM_EXTRACTED, index=i, text=claim.text, claim_type=claim.type,
                          span=list(claim.span), cited_chunk_ids=list(claim.cited_chunk_ids),
                          cycle=number, turn=turn.index)
        mode = self.session.verification_mode
        verified = []
        for i, claim in enumerate(claims, 1):
            v = claim_verify(claim=claim, evidence=evidence, mode=mode, judge=self.judge)
            verified.append(v)
            j = v.judgement
            self.log.emit(
                EventType.CLAIM_VERIFIED, index=i, verdict=j.verdict, score=round(j.score, 4),
                confidence=round(v.confidence, 4), level=v.level,
                evidence_chunk_id=j.evidence_chunk_id, snippet=j.snippet, reasoning=j.reasoning,
                supporting_chunk_ids=list(j.supporting_chunk_ids),
                contradicting_chunk_ids=list(j.contradicting_chunk_ids),
                ms=round(v.ms, 3), cycle=number, turn=turn.index,
            )
        metrics = ledger_metrics([v.judgement.verdict for v in verified], text,
                                 len(cited_ids(text)))
        with transaction.atomic():
            revision = Revision.objects.create(
                turn=turn, cycle=number, text=text, coverage=metrics["evidence_coverage"]
            )
            ledger_save(turn=turn, revision=revision, verified=verified, chunk_pks=chunk_pks)
        self.log.emit(EventType.LEDGER_UPDATED, cycle=number, turn=turn.index,
                      counts=metrics["counts"], coverage=metrics["evidence_coverage"])
        return Cycle(number, text, verified, metrics, revision)

    def _should_revise(self, cycle: Cycle, result: RetrievalResult) -> bool:
        """Draft: while coverage < 85 % and cycle < 2. Answer: at most one revision, when
        a claim is unsupported and evidence (retrieved chunks) exists (DESIGN.md §1)."""
        unsupported = any(not v.supported for v in cycle.verified)
        if not unsupported or not result.chunks:
            return False
        if self.session.mode == Mode.DRAFT:
            return (cycle.metrics["evidence_coverage"] < COVERAGE_TARGET
                    and cycle.number < MAX_DRAFT_CYCLES)
        return cycle.number < MAX_ANSWER_CYCLES

    def _finish(self, cycle: Cycle, result: RetrievalResult, memory: WorkingMemory) -> None:
        turn, session = self.turn, self.session
        self.stage = "conclude"
        summary = claims_summary(cycle.verified)
        self.log.emit(EventType.CONFIDENCE_CALCULATED, kind="claims", turn=turn.index, **summary)
        for v in cycle.verified:
            if not v.supported:
                memory.gap(f"Unsupported ({v.judgement.verdict}): {v.draft.text[:160]}")
        if cycle.text.strip() == NOT_FOUND:
            memory.gap("No source passage answered the question.")
        times = [v.ms for v in cycle.verified]
        metrics = {
            **cycle.metrics,
            "time_to_first_token_ms": self.first_delta_ms,
            "total_ms": self.elapsed_ms(),
            "verification_ms": {
                "per_claim_median": round(statistics.median(times), 3) if times else 0.0,
                "per_claim_max": round(max(times), 3) if times else 0.0,
            },
            # The embedded backends call no model, so they spend no tokens; model-backed
            # roles record their usage here.
            "tokens": {"writer": 0, "skeptic": 0, "judge": 0},
            "revision_cycles": cycle.number,
            "retrieval": {"candidates": result.candidates, "kept": len(result.chunks)},
        }
        turn.answer_markdown = cycle.text
        turn.claim_confidence = summary
        turn.metrics = metrics
        turn.working_memory = memory.snapshot()
        turn.suggested_followups = suggested_followups(cycle.text, result)
        turn.assumptions = assumptions(session)
        turn.limitations = limitations(cycle, result)
        turn.status = RunStatus.COMPLETED
        turn.completed = timezone.now()
        with transaction.atomic():
            turn.save()
            session.status = RunStatus.COMPLETED
            session.completed = turn.completed
            session.save(update_fields=["status", "completed"])
        self.reason(
            EventType.REASONING_CONCLUSION,
            f"{summary['claims']} claim(s), coverage {metrics['evidence_coverage']:.0%}, "
            f"confidence {summary['level']} after {cycle.number} revision(s).",
        )
        self.log.emit(EventType.GENERATION_COMPLETE, turn=turn.index, metrics=metrics,
                      answer_markdown=cycle.text)
        Turn.objects.filter(pk=turn.pk).update(**self._log_head())


def turn_run(turn: Turn) -> Turn:
    """Run the pipeline for ``turn`` and return it (status completed or error).

    Never raises for a failure inside the run: the failure is stored as an ``error``
    event and on the turn (``Turn.error``).
    """
    return TurnRun(turn).run()


def suggested_followups(text: str, result: RetrievalResult) -> list[str]:
    """Up to three follow-up questions about retrieved sections the answer did not cite."""
    cited = set(cited_ids(text))
    questions: list[str] = []
    for chunk in result.chunks:
        heading = re.sub(r"^[#\s*]+", "", chunk.heading).strip(" .:")
        if chunk.chunk_id in cited or not heading or len(heading.split()) > 14:
            continue
        question = f"What does {chunk.citation_label or chunk.document_title} say in “{heading}”?"
        if question not in questions:
            questions.append(question)
        if len(questions) == 3:
            break
    return questions


def assumptions(session) -> list[str]:
    """What the answer takes for granted about its scope."""
    items = [f"Only documents loaded in the workspace “{session.workspace.name}” were searched."]
    if session.jurisdictions:
        items.append("Jurisdictions considered: " + ", ".join(session.jurisdictions)
                     + " and the state and federal levels above them.")
    return items


def limitations(cycle: Cycle, result: RetrievalResult) -> list[str]:
    """What a reader should keep in mind about this answer."""
    items = []
    unsupported = sum(1 for v in cycle.verified if not v.supported)
    if unsupported:
        items.append(f"{unsupported} claim(s) could not be fully verified against the sources.")
    dates = [c.last_updated for c in result.chunks if c.last_updated]
    if dates:
        items.append(f"Sources are as of their own dates (oldest {min(dates).isoformat()}); "
                     "later amendments are not reflected.")
    return items
