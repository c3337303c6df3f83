"""The orchestrator: one run of the pipeline for one turn (DESIGN.md §1).

    analyse → retrieve (two lanes, + earlier turns' cited chunks) → write (streamed)
            → extract claims → verify (support and relevance) → (evidence gate, revise)
            → ledger → Critic (Draft mode) → outcome (answered / partial / not answered)

Every step leaves a trace in the session's event log (DESIGN.md §4): reasoning events
(thought / action / observation / conclusion, one action/observation pair per model
call), the streamed content (coalesced, see ``sessions.writer.coalesced``), the claims
and their verdicts. A failure at any step ends the turn with an ``error`` event and
status ``error``; what was completed before (revisions and their ledgers) stays stored.
A member may cancel a running turn (``sessions.services.turn_cancel``): the run stops at
its next checkpoint (each stage, each streamed delta, each verified claim) with status
``cancelled`` and an ``error`` event of code ``cancelled``, keeping what it completed.

The Critic (``sessions.critic``, seed 003) runs after the last verification in the modes
of ``settings.CIQ_CRITIC_MODES`` (default: Draft only). An Answer is a few sentences
already revised once against its findings, and its unsupported claims are shown flagged
in the ledger, which a person asking a question should see; a draft is a document
someone will send on, so its overreach is removed, its repeats merged and its dangling
references fixed. When the Critic changes the text, its version is a new revision
(author "critic", with its edits), each edit a ``critic_edit`` event, and its ledger
holds the claims that remain: unchanged ones keep their verdicts, shortened or merged
ones are verified again.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields, replace

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ciq.roles import role_backend
from ciq.text import content_terms
from retrieval.confidence import retrieval_confidence
from retrieval.models import Chunk
from retrieval.places import Routing
from retrieval.plan import question_plan
from retrieval.question import QuestionAnalysis
from retrieval.relevance import ASKS_ABOUT_MEETING_RE, DELIBERATIVE_TITLE_RE, holds
from retrieval.search import Budget, RetrievalResult, RetrievedChunk, chunks_retrieve
from sessions.audit import turn_seal
from sessions.critic import ACTIONS, CriticResult, critic_model, critic_rules
from sessions.events import EventLog
from sessions.memo import memo_sources_refreshed
from sessions.memory import WorkingMemory
from sessions.models import EventType, Mode, Outcome, Revision, RevisionAuthor, RunStatus, Turn
from sessions.pinpoints import quoted_sentences, sources_pinpointed
from sessions.prompts.answer import NO_INFORMATION
from sessions.prompts.compliance import permits_parse
from sessions.prompts.revision import Finding
from sessions.writer import (
    NOT_FOUND,
    WriteRequest,
    candidates_for,
    coalesced,
    normalise_sentence,
    not_answered_text,
)
from verification.citations import cited_ids, strip_citations
from verification.judge import EvidenceChunk
from verification.models import ClaimType
from verification.relevance import answer_coverage, outcome_for
from verification.scoring import COVERAGE_TARGET, ledger_metrics
from verification.services import VerifiedClaim, claim_verify, claims_summary, ledger_save
from verification.skeptic import template_masked

logger = logging.getLogger(__name__)

MAX_DRAFT_CYCLES = 2  # DESIGN.md §1: Draft revises while coverage < 85 % and cycle < 2
MAX_ANSWER_CYCLES = 1
# Evidence gate (issue 5): below this coverage after the first text, the evidence is
# clearly short; up to EXPANSION_QUERIES retrievals aimed at the unsupported claims add
# passages before the (single) re-synthesis.
EVIDENCE_GATE_COVERAGE = 0.5
EXPANSION_QUERIES = 2
ROLES = ("writer", "skeptic", "judge")
ANSWER_SUMMARY_CHARS = 300
# How often (seconds) the run looks for a cancel request inside a stage: a query per
# streamed delta or verified claim would cost more than the work it guards.
CANCEL_POLL_SECONDS = 0.5


class TurnCancelled(Exception):
    """A member asked to stop the run (``Turn.cancel_requested_at`` is set)."""

    code = "cancelled"


@dataclass
class Cycle:
    """One written text and its verification (``critic``: the Critic's result when this
    cycle is its revision)."""

    number: int
    text: str
    verified: list[VerifiedClaim]
    metrics: dict
    revision: Revision
    critic: CriticResult | None = None

    @property
    def writer_cycles(self) -> int:
        """Revision cycles of the Writer (the Critic's revision is not one)."""
        return self.number - (1 if self.critic else 0)


class TurnRun:
    """Runs one turn; ``run()`` returns the turn, completed or in error."""

    def __init__(self, turn: Turn):
        self.turn = turn
        self.session = turn.session
        self.started = time.perf_counter()
        self.first_delta_ms: float | None = None
        self.stage = "setup"
        self.backends: dict = {}
        self.traced: dict[str, int] = {}  # role → model calls already in the trace
        self.polled = 0.0  # perf_counter of the last look for a cancel request
        self.critic: dict | None = None  # what the Critic did, for the turn's metrics

    # -- helpers -----------------------------------------------------------------------
    def elapsed_ms(self) -> float:
        """Milliseconds since the run started (one decimal)."""
        return round((time.perf_counter() - self.started) * 1000, 1)

    def reason(self, kind: EventType, text: str, **extra) -> None:
        """Append a reasoning-trace event (thought, action, observation or conclusion)."""
        self.log.emit(kind, stage=self.stage, text=text, elapsed_ms=self.elapsed_ms(),
                      turn=self.turn.index, **extra)

    def checkpoint(self, *, throttle: bool = True) -> None:
        """Raise :class:`TurnCancelled` when a member asked to stop this turn. With
        ``throttle`` the database is read at most every ``CANCEL_POLL_SECONDS``."""
        now = time.perf_counter()
        if throttle and now - self.polled < CANCEL_POLL_SECONDS:
            return
        self.polled = now
        if Turn.objects.filter(pk=self.turn.pk, cancel_requested_at__isnull=False).exists():
            raise TurnCancelled()

    def enter(self, stage: str) -> None:
        """Start ``stage`` (plan, retrieve, write, verify, revise, conclude); a pending
        cancel request stops the run here."""
        self.stage = stage
        self.checkpoint(throttle=False)

    # -- the run -------------------------------------------------------------------------
    def run(self) -> Turn:
        """Run the turn; never raises for a failure inside it (see ``_fail``)."""
        turn, session = self.turn, self.session
        try:
            Turn.objects.filter(pk=turn.pk).update(status=RunStatus.PROCESSING)
            type(session).objects.filter(pk=session.pk).update(status=RunStatus.PROCESSING)
            self.log = EventLog(session)
            self.backends = {role: role_backend(role) for role in ROLES}
            self.writer, self.skeptic, self.judge = (self.backends[r] for r in ROLES)
            self.enter("plan")
            self._run()
        except TurnCancelled:
            self._fail(TurnCancelled(), status=RunStatus.CANCELLED)
        except Exception as exc:  # every failure ends the turn visibly, never silently
            self._fail(exc)
        turn_seal(turn=turn)  # the turn's record into the audit chain (sessions/audit.py)
        turn.refresh_from_db()
        return turn

    def _fail(self, exc: Exception, *, status: RunStatus = RunStatus.ERROR) -> None:
        """Record a failure: an ``error`` event (when the log can still be written) and
        ``status`` (``error``, or ``cancelled`` for :class:`TurnCancelled`) on the turn
        and session, whatever else goes wrong.

        Exceptions that carry a ``code`` (bad backend output, provider errors) are
        expected and shown as they are; any other is an internal error whose details
        go to the log and ``Turn.error`` but not into the client-facing event.
        """
        turn, session = self.turn, self.session
        detail = f"{self.stage}: {exc}"
        code = getattr(exc, "code", None)
        if status == RunStatus.CANCELLED:
            detail = message = (f"Cancelled during {self.stage} after "
                                f"{self.elapsed_ms() / 1000:.1f} s; what the run completed is kept.")
        elif code is None:
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
            metrics = {**Turn.objects.get(pk=turn.pk).metrics, **self.token_metrics()}
            Turn.objects.filter(pk=turn.pk).update(
                status=status, error=detail, completed=now, metrics=metrics,
                **self._log_head()
            )
            type(session).objects.filter(pk=session.pk).update(status=status, completed=now)

    def trace_calls(self, role: str) -> None:
        """One reasoning action and observation per model call the role made since the
        last trace (model-backed backends only: they keep a ``meter``)."""
        meter = getattr(self.backends.get(role), "meter", None)
        if meter is None:
            return
        calls = list(meter.calls)
        for call in calls[self.traced.get(role, 0):]:
            self.reason(EventType.REASONING_ACTION,
                        f"Called {call['model']} as {role} ({call['purpose']}).",
                        role=role, model=call["model"], prompt=call["purpose"])
            self.reason(EventType.REASONING_OBSERVATION,
                        f"{call['model']} answered in {call['ms']:.0f} ms: "
                        f"{call['input_tokens']} input, {call['output_tokens']} output tokens.",
                        role=role, **{k: call[k] for k in ("input_tokens", "output_tokens", "ms")})
        self.traced[role] = len(calls)

    def token_metrics(self) -> dict:
        """``{"tokens": {role: total tokens}, "model_calls": {role: {"input_tokens",
        "output_tokens", "calls"}}}`` of this turn (0 for the embedded backends)."""
        detail = {role: meter.totals() for role in ROLES
                  if (meter := getattr(self.backends.get(role), "meter", None))}
        return {
            "tokens": {role: detail[role]["input_tokens"] + detail[role]["output_tokens"]
                       if role in detail else 0 for role in ROLES},
            "model_calls": detail,
        }

    def _log_head(self) -> dict:
        """The session log's head as the turn ends: an anchor against truncation."""
        last = self.session.events.order_by("-seq").values_list("seq", "hash").first()
        return {"log_seq": last[0], "log_hash": last[1]} if last else {}

    def _run(self) -> None:
        turn, session = self.turn, self.session
        earlier = list(session.turns.filter(index__lt=turn.index).order_by("index"))
        memory = WorkingMemory(
            question=turn.question,
            jurisdictions=list(session.jurisdictions),
            previous_questions=[t.question for t in earlier],
            previous_answers=[answer_summary(t.answer_markdown) for t in earlier],
        )
        goals = memory.plan()
        self.reason(EventType.REASONING_THOUGHT,
                    f"Planning: {len(goals)} sub-goal(s): " + "; ".join(goals), sub_goals=goals)
        self.analysis, self.routing = self._analyse(memory)

        # Retrieve.
        self.enter("retrieve")
        targets = list(session.jurisdictions) or self.routing.targets
        scope = ", ".join(targets) or "all jurisdictions"
        if self.routing.documents:
            scope += f"; {len(self.routing.documents)} document(s) naming " + ", ".join(self.routing.parties
                                                                                      or ["the act"])
        self.reason(EventType.REASONING_ACTION,
                    f"Searching the local and statewide lanes ({scope}).")
        budget = Budget.for_mode(session.mode)
        declined = self.routing.only_missing and not session.jurisdictions
        result = chunks_retrieve(
            turn.question, workspace=session.workspace,
            jurisdictions=() if declined else targets,
            budget=budget, extra_terms=" ".join(memory.previous_questions[-1:]),
            analysis=self.analysis, documents=self.routing.documents or None,
        )
        carried = earlier_cited_chunks(earlier, result.chunks, workspace=session.workspace,
                                       cap=budget.merged_cap)
        result.chunks = ranked(result.chunks + carried)
        self._record_retrieval(result, memory, carried=len(carried))

        # Write, verify, revise.
        self.enter("write")
        request = WriteRequest(
            question=turn.question, mode=session.mode, chunks=result.chunks,
            jurisdictions=session.jurisdictions, term_weights=result.term_weights,
            context=memory.get_context(), analysis=self.analysis,
            searched=searched_text(result, targets, self.routing),
        )
        if declined:
            if self.routing.unknown:
                names = ", ".join(f"“{n}”" for n in self.routing.unknown)
                why = f"No document in the workspace mentions {names}."
            else:
                missing = ", ".join(m.label for m in self.routing.missing)
                why = f"The workspace holds no documents of {missing}."
            self.reason(EventType.REASONING_CONCLUSION, f"{why} The documents cannot answer this.")
            request = replace(request, searched=f"{why} {request.searched}")
            self._finish(self._decline(0, request), result, memory)
            return
        cycle = self._cycle(0, request)
        expanded = False
        while self._should_revise(cycle, result):
            unsupported = [v for v in cycle.verified if not v.supported]
            self.enter("revise")
            self.log.emit(EventType.REVISION_STARTED, cycle=cycle.number + 1, turn=turn.index,
                          reason=f"{len(unsupported)} claim(s) not supported; coverage "
                                 f"{cycle.metrics['evidence_coverage']:.0%}",
                          unsupported=[v.draft.text for v in unsupported])
            if not expanded and cycle.metrics["evidence_coverage"] < EVIDENCE_GATE_COVERAGE:
                expanded = True
                result.chunks = self._expand(result.chunks, unsupported, budget, memory)
            exclude = request.exclude | {normalise_sentence(v.draft.text) for v in unsupported}
            request = replace(
                request, chunks=result.chunks, exclude=frozenset(exclude),
                previous_text=cycle.text, context=memory.get_context(),
                findings=tuple(Finding(v.draft.text, v.judgement.verdict, v.judgement.reasoning,
                                       v.judgement.snippet) for v in unsupported),
            )
            self.enter("write")
            revised = self._cycle(cycle.number + 1, request)
            unchanged = revised.text == cycle.text
            cycle = revised  # the last stored revision is the turn's answer and ledger
            if unchanged:  # the Writer had nothing else to say
                break
        if self._answer_coverage(cycle) == 0 and (cycle.verified or hasattr(self.writer, "meter")):
            # Nothing the claims say addresses the question: the turn says so, with the
            # nearest passages as related, never as a verified answer. A model's own
            # refusal is replaced too, so that only CIQ writes the "related" section.
            self.reason(EventType.REASONING_CONCLUSION,
                        "No supported claim addresses the question: answering “not answered”.")
            cycle = self._decline(cycle.number + 1, request)
        else:
            cycle = self._critique(cycle, request)
        self._finish(cycle, result, memory)

    def _analyse(self, memory: WorkingMemory) -> tuple[QuestionAnalysis, Routing]:
        """Question analysis and, with no target picked, the places, authorities and
        parties it names (issue 9); kept in working memory and shown in the trace."""
        session = self.session
        earlier = session.turns.filter(index__lt=self.turn.index).order_by("-index").first()
        analysis, routing = question_plan(
            self.turn.question, workspace=session.workspace, jurisdictions=session.jurisdictions,
            draft=session.mode == Mode.DRAFT, earlier_question=earlier.question if earlier else "",
            earlier_targets=(earlier.answerability or {}).get("targets", []) if earlier else (),
        )
        memory.analysis = analysis.as_dict()
        memory.routing = routing.as_dict()
        facets = "; ".join(f"“{f.text}” ({f.kind})" for f in analysis.facets)
        places = ", ".join(f"{m.text} → {m.code}" + ("" if m.loaded else " (no documents)")
                           for m in routing.mentions)
        self.reason(
            EventType.REASONING_THOUGHT,
            f"The question asks for {analysis.kind.replace('_', ' ')}; "
            f"{len(analysis.facets)} facet(s): {facets}."
            + (f" Places named: {places}." if places else "")
            + (f" Parties named: {', '.join(routing.parties)}." if routing.parties else "")
            + (" The kind of fact asked is not recognised for a general facet: an answer to it can be "
               "given, not vouched for (Low at most)."
               if analysis.untyped else ""),
            analysis=memory.analysis, routing=memory.routing,
        )
        return analysis, routing

    def _answer_coverage(self, cycle: Cycle) -> float:
        """Facets of the question addressed by the cycle's supported claims, in [0, 1]."""
        return answer_coverage(self.analysis, [v.addressed for v in cycle.verified if v.supported])

    def _decline(self, number: int, request: WriteRequest) -> Cycle:
        """A "Not answered" revision: the statement, what was searched and the nearest
        passages as related (no claims, an empty ledger)."""
        text = not_answered_text(request, related=candidates_for(request))
        self.log.emit(EventType.CONTENT_CHUNK, delta=text, full_content=text, cycle=number,
                      turn=self.turn.index)
        metrics = ledger_metrics([], text, 0)
        with transaction.atomic():
            revision = Revision.objects.create(turn=self.turn, cycle=number, text=text, coverage=0.0)
        self.log.emit(EventType.LEDGER_UPDATED, cycle=number, turn=self.turn.index,
                      counts=metrics["counts"], coverage=0.0)
        return Cycle(number, text, [], metrics, revision)

    def _expand(self, chunks: list[RetrievedChunk], unsupported, budget: Budget,
                memory: WorkingMemory) -> list[RetrievedChunk]:
        """The evidence gate: up to ``EXPANSION_QUERIES`` retrievals, one per unsupported
        claim (the facets the evidence missed); new passages join the context, which
        stays within ``budget.merged_cap`` more than the original."""
        session, known = self.session, {c.chunk_id for c in chunks}
        added: list[RetrievedChunk] = []
        for v in unsupported[:EXPANSION_QUERIES]:
            self.reason(EventType.REASONING_ACTION,
                        f"Evidence is short: searching again for “{v.draft.text[:120]}”.")
            found = chunks_retrieve(v.draft.text, workspace=session.workspace, budget=budget,
                                    jurisdictions=list(session.jurisdictions) or self.routing.targets,
                                    documents=self.routing.documents or None).chunks
            new = [c for c in found if c.chunk_id not in known][: budget.keep]
            known |= {c.chunk_id for c in new}
            added += new
            for c in new:
                memory.gather(chunk_id=c.chunk_id, title=c.document_title,
                              note=c.heading or c.text[:120])
            self.reason(EventType.REASONING_OBSERVATION,
                        f"Found {len(new)} new passage(s) for the missing facet.",
                        chunk_ids=[c.chunk_id for c in new])
        return ranked(chunks + added[: budget.merged_cap])

    def _record_retrieval(self, result: RetrievalResult, memory: WorkingMemory, *,
                          carried: int = 0) -> None:
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
            candidates=result.candidates, kept=len(result.chunks), carried=carried,
            chunks=[{"chunk_id": c.chunk_id, "title": c.document_title, "lane": c.lane,
                     "jurisdiction": c.jurisdiction, "score": c.score} for c in result.chunks],
        )
        lanes = result.lanes
        self.reason(
            EventType.REASONING_OBSERVATION,
            f"Kept {len(result.chunks)} of {result.candidates} chunk(s): "
            f"{lanes['local']['kept']} local, {lanes['state']['kept']} statewide"
            + (f", and {carried} cited in earlier turns." if carried else "."),
        )
        confidence = retrieval_confidence(result.chunks, session.jurisdictions)
        self.turn.retrieval_confidence = confidence.as_dict()
        self.turn.sources = [c.as_source() for c in result.chunks]
        self.turn.save(update_fields=["retrieval_confidence", "sources"])
        self.log.emit(EventType.CONFIDENCE_CALCULATED, kind="retrieval", turn=self.turn.index,
                      **confidence.as_dict())

    def _cycle(self, number: int, request: WriteRequest) -> Cycle:
        turn = self.turn
        titles = {c.chunk_id: c for c in request.chunks}
        self.reason(EventType.REASONING_ACTION,
                    f"Writing {'a revision' if number else 'the answer'} from "
                    f"{len(request.chunks)} chunk(s).", cycle=number)
        text, numbers = "", {}
        deltas = coalesced(self.writer.stream(request), interval_ms=settings.STREAM_INTERVAL_MS,
                           min_chars=settings.STREAM_MIN_CHARS)
        for delta in deltas:
            if self.first_delta_ms is None:
                self.first_delta_ms = self.elapsed_ms()
            self.checkpoint()
            text += delta
            self.log.emit(EventType.CONTENT_CHUNK, delta=delta, full_content=text, cycle=number,
                          turn=turn.index)
            # Scan the text so far: a model may split a marker across two deltas.
            new_ids = [c for c in dict.fromkeys(cited_ids(text)) if c not in numbers]
            quoted = quoted_sentences(text) if new_ids else {}
            for chunk_id in new_ids:
                numbers[chunk_id] = len(numbers) + 1
                source = titles.get(chunk_id)
                self.log.emit(
                    EventType.CITATION_DETECTED, chunk_id=chunk_id, number=numbers[chunk_id],
                    cycle=number, turn=turn.index,
                    title=source.document_title if source else "",
                    citation_label=source.citation_label if source else "",
                    # the section of the sentence that cites it, not the chunk's first
                    pinpoint=source.cited_pinpoint(quoted.get(chunk_id, ())) if source else "",
                    known=source is not None,
                )

        self.trace_calls("writer")
        return self._verify_store(number, text, request)

    def _verify_store(self, number: int, text: str, request: WriteRequest, *,
                      known: dict | None = None, critic: CriticResult | None = None) -> Cycle:
        """Extract and verify the claims of ``text``, then store it as revision ``number``
        with its ledger (one transaction). ``known``: (claim text, cited ids) →
        :class:`VerifiedClaim` of claims verified before, reused with their new span
        instead of judged again (the Critic's unchanged sentences). ``critic``: the
        Critic's result when this revision is its."""
        turn = self.turn
        evidence = [EvidenceChunk(chunk_id=c.chunk_id, text=c.text,
                                  context=f"{c.document_title}\n{c.heading}", jurisdiction=c.jurisdiction)
                    for c in request.chunks]
        chunk_pks = {c.chunk_id: c.chunk_pk for c in request.chunks}
        self.enter("verify")
        # Every Skeptic (rules or model) reads the text with its template blanked (memo
        # header, restated question, open questions, sources: same length, offsets kept).
        claims = self.skeptic.extract(template_masked(text))
        self.trace_calls("skeptic")
        for i, claim in enumerate(claims, 1):
            self.log.emit(EventType.CLAIM_EXTRACTED, index=i, text=claim.text, claim_type=claim.type,
                          span=list(claim.span), cited_chunk_ids=list(claim.cited_chunk_ids),
                          cycle=number, turn=turn.index)
        verified = []
        known = known or {}
        fresh = [c for c in claims if (c.text, tuple(c.cited_chunk_ids)) not in known]
        judged = iter(self._verify(fresh, evidence, request.term_weights))
        reused = (replace(known[(c.text, tuple(c.cited_chunk_ids))], draft=c)
                  if (c.text, tuple(c.cited_chunk_ids)) in known else next(judged) for c in claims)
        for i, v in enumerate(reused, 1):
            self.checkpoint()
            verified.append(v)
            j = v.judgement
            self.log.emit(
                EventType.CLAIM_VERIFIED, index=i, verdict=j.verdict, score=round(j.score, 4),
                confidence=round(v.confidence, 4), level=v.level,
                evidence_chunk_id=j.evidence_chunk_id, snippet=j.snippet, reasoning=j.reasoning,
                supporting_chunk_ids=list(j.supporting_chunk_ids),
                contradicting_chunk_ids=list(j.contradicting_chunk_ids),
                relevance=round(v.relevance.vouched, 4) if v.relevance else None,
                addressed=list(v.addressed), ms=round(v.ms, 3), cycle=number, turn=turn.index,
            )
        self.trace_calls("judge")
        metrics = ledger_metrics([v.judgement.verdict for v in verified], text,
                                 len(cited_ids(text)))
        extra = ({"author": RevisionAuthor.CRITIC, "critic_by": critic.by,
                  "edits": [e.as_event() for e in critic.edits]} if critic else {})
        with transaction.atomic():
            revision = Revision.objects.create(
                turn=turn, cycle=number, text=text, coverage=metrics["evidence_coverage"], **extra
            )
            ledger_save(turn=turn, revision=revision, verified=verified, chunk_pks=chunk_pks)
        self.log.emit(EventType.LEDGER_UPDATED, cycle=number, turn=turn.index,
                      counts=metrics["counts"], coverage=metrics["evidence_coverage"])
        return Cycle(number, text, verified, metrics, revision, critic)

    def _critique(self, cycle: Cycle, request: WriteRequest) -> Cycle:
        """The Critic pass on the verified ``cycle`` (see the module docstring): the same
        cycle when the mode has no Critic, nothing was claimed or nothing changed; else
        the Critic's revision (``cycle.number + 1``) with its ledger."""
        modes = getattr(settings, "CIQ_CRITIC_MODES", (Mode.DRAFT,))
        if self.session.mode not in modes or not cycle.verified:
            return cycle
        self.enter("critique")
        self.reason(EventType.REASONING_ACTION, "Critic: reading the verified text for overreach, "
                    "repeated points and dangling references.", cycle=cycle.number)
        evidence = {c.chunk_id: c.text for c in request.chunks}
        started = time.perf_counter()
        result = critic_rules(cycle.text, cycle.verified, evidence)
        if hasattr(self.writer, "chat"):  # a model Writer gets a model Critic, checked
            result = critic_model(cycle.text, cycle.verified, evidence, chat=self.writer.chat,
                                  meter=self.writer.meter, question=self.turn.question,
                                  chunks=request.chunks, rules=result)
            self.trace_calls("writer")
        self.critic = {"by": result.by, "edits": len(result.edits),
                       "actions": {a: sum(e.action == a for e in result.edits) for a in ACTIONS},
                       "ms": round((time.perf_counter() - started) * 1000, 1)}
        self.reason(EventType.REASONING_OBSERVATION, result.note, critic_by=result.by,
                    edits=len(result.edits))
        if not result.edits or result.text == cycle.text:
            return cycle
        # A memo's Sources list what its text still cites, not what a deleted claim cited.
        result = replace(result, text=memo_sources_refreshed(result.text, request.chunks))
        number = cycle.number + 1
        for edit in result.edits:
            self.log.emit(EventType.CRITIC_EDIT, cycle=number, turn=self.turn.index, by=result.by,
                          **edit.as_event())
        self.log.emit(EventType.CONTENT_CHUNK, delta=result.text, full_content=result.text,
                      cycle=number, turn=self.turn.index)
        known = {(v.draft.text, tuple(v.draft.cited_chunk_ids)): v for v in cycle.verified}
        return self._verify_store(number, result.text, request, known=known, critic=result)

    def _verify(self, claims, evidence, idf) -> Iterator[VerifiedClaim]:
        """Verified claims in claim order, each judged for support and for relevance to
        the question. A Judge with ``concurrency`` > 1 (a model) gets that many claims at
        once; on a failure the claims not yet started are dropped."""
        mode = self.session.verification_mode

        def verify(claim):
            return claim_verify(claim=claim, evidence=evidence, mode=mode, judge=self.judge,
                                analysis=self.analysis, idf=idf)

        workers = min(getattr(self.judge, "concurrency", 1), len(claims))
        if workers <= 1:
            yield from map(verify, claims)
            return
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ciq-judge")
        try:
            yield from pool.map(verify, claims)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _should_revise(self, cycle: Cycle, result: RetrievalResult) -> bool:
        """Draft: while coverage < 85 % and cycle < 2. Answer: at most one revision, when
        a critical claim (any but an opinion) is unsupported and evidence (retrieved
        chunks) exists (DESIGN.md §1)."""
        unsupported = any(not v.supported and v.draft.type != ClaimType.OPINION
                          for v in cycle.verified)
        if not unsupported or not result.chunks:
            return False
        if self.session.mode == Mode.DRAFT:
            return (cycle.metrics["evidence_coverage"] < COVERAGE_TARGET
                    and cycle.number < MAX_DRAFT_CYCLES)
        return cycle.number < MAX_ANSWER_CYCLES

    def _finish(self, cycle: Cycle, result: RetrievalResult, memory: WorkingMemory) -> None:
        turn, session = self.turn, self.session
        self.enter("conclude")
        coverage = self._answer_coverage(cycle)
        summary = claims_summary(cycle.verified, answer_coverage=coverage)
        self.log.emit(EventType.CONFIDENCE_CALCULATED, kind="claims", turn=turn.index, **summary)
        for v in cycle.verified:
            if not v.supported:
                memory.gap(f"Unsupported ({v.judgement.verdict}): {v.draft.text[:160]}")
        if cycle.text.strip() in (NOT_FOUND, NO_INFORMATION) or coverage == 0:
            memory.gap("No source passage answered the question.")
        times = [v.ms for v in cycle.verified]
        metrics = {
            **cycle.metrics,
            "answer_coverage": coverage,
            "time_to_first_token_ms": self.first_delta_ms,
            "total_ms": self.elapsed_ms(),
            "verification_ms": {
                "per_claim_median": round(statistics.median(times), 3) if times else 0.0,
                "per_claim_max": round(max(times), 3) if times else 0.0,
            },
            **self.token_metrics(),
            "revision_cycles": cycle.writer_cycles,
            "critic": self.critic,
            "retrieval": {"candidates": result.candidates, "kept": len(result.chunks)},
        }
        turn.answer_markdown = cycle.text
        turn.sources = sources_pinpointed(turn.sources, result.chunks, cycle.verified)
        turn.outcome = outcome_for(coverage)
        addressed = {i for v in cycle.verified if v.supported for i in v.addressed}
        turn.answerability = {
            "outcome": turn.outcome, "answer_coverage": coverage,
            "kind": self.analysis.kind,
            "facets": [{"text": f.text, "kind": f.kind, "terms": [t.key for t in f.terms],
                        "addressed": i in addressed} for i, f in enumerate(self.analysis.facets)],
            "years": list(self.analysis.years),
            "places": [{"text": m.text, "code": m.code, "loaded": m.loaded}
                       for m in self.routing.mentions],
            "parties": self.routing.parties,
            "targets": list(session.jurisdictions) or self.routing.targets,
        }
        turn.claim_confidence = summary
        turn.metrics = metrics
        turn.working_memory = memory.snapshot()
        synthesis = getattr(self.writer, "synthesis", None) or {}
        turn.suggested_followups = (synthesis.get("suggested_followups")
                                    or suggested_followups(cycle.text, result, self.analysis))
        turn.assumptions = assumptions(session) + synthesis.get("assumptions", [])
        turn.limitations = limitations(cycle, result, draft=session.mode == Mode.DRAFT) \
            + synthesis.get("limitations", [])
        turn.synthesis = {k: v for k, v in synthesis.items()
                          if k in ("used_statewide", "statewide_reason", "applicability_check")}
        turn.permits = permits_parse(cycle.text)
        turn.status = RunStatus.COMPLETED
        turn.completed = timezone.now()
        with transaction.atomic():
            turn.save()
            session.status = RunStatus.COMPLETED
            session.completed = turn.completed
            session.save(update_fields=["status", "completed"])
        self.reason(
            EventType.REASONING_CONCLUSION,
            f"{Outcome(turn.outcome).label}: answer coverage {coverage:.0%}; "
            f"{summary['claims']} claim(s), evidence coverage {metrics['evidence_coverage']:.0%}, "
            f"confidence {summary['level']} after {cycle.writer_cycles} revision(s)"
            + (f" and {len(cycle.critic.edits)} Critic edit(s)." if cycle.critic else "."),
        )
        self.log.emit(EventType.GENERATION_COMPLETE, turn=turn.index, metrics=metrics,
                      answer_markdown=cycle.text, outcome=turn.outcome, answer_coverage=coverage,
                      suggested_followups=turn.suggested_followups)
        Turn.objects.filter(pk=turn.pk).update(**self._log_head())


def searched_text(result: RetrievalResult, targets, routing: Routing) -> str:
    """One sentence naming what was searched: the jurisdictions and the documents the
    kept passages come from (at most five titles)."""
    titles = list(dict.fromkeys(c.citation_label or c.document_title for c in result.chunks))
    where = ("jurisdictions " + ", ".join(targets)) if targets else "every jurisdiction"
    docs = (f"{len(titles)} document(s) with matching passages ("
            + "; ".join(titles[:5]) + ("; …" if len(titles) > 5 else "") + ")") if titles \
        else "no document with a matching passage"
    return f"Searched: {where}; {docs}."


def turn_run(turn: Turn) -> Turn:
    """Run the pipeline for ``turn`` and return it (status completed or error).

    Never raises for a failure inside the run: the failure is stored as an ``error``
    event and on the turn (``Turn.error``).
    """
    return TurnRun(turn).run()


def suggested_followups(text: str, result: RetrievalResult,
                        analysis: QuestionAnalysis | None = None) -> list[str]:
    """Up to three follow-up questions about retrieved sections the answer did not cite.

    With the question's ``analysis`` a section qualifies only when its heading shares a
    topic term with the question (any phrasing of the lexicon), and never from the minutes
    or agenda of a meeting unless the question is about one (issue 14: "What does … say
    in 'CALL TO ORDER AND ROLL CALL'?" is no follow-up to a question about docks)."""
    cited = set(cited_ids(text))
    topic = [t for t in analysis.topic if t.weight == 1.0] if analysis else []
    meeting_question = bool(analysis and ASKS_ABOUT_MEETING_RE.search(analysis.question))
    questions: list[str] = []
    for chunk in result.chunks:
        heading = re.sub(r"^[#\s*]+", "", chunk.heading).strip(" .:")
        if chunk.chunk_id in cited or not heading or len(heading.split()) > 14:
            continue
        if analysis is not None:
            stems = set(content_terms(heading))
            if not any(holds(t, stems) for t in topic):
                continue
            if DELIBERATIVE_TITLE_RE.search(chunk.document_title) and not meeting_question:
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


def limitations(cycle: Cycle, result: RetrievalResult, *, draft: bool = False) -> list[str]:
    """What a reader should keep in mind about this answer. A draft still under the
    coverage target after its revisions is accepted with a warning (DESIGN.md §1)."""
    items = []
    unsupported = [i for i, v in enumerate(cycle.verified, 1) if not v.supported]
    if draft and unsupported and cycle.metrics["evidence_coverage"] < COVERAGE_TARGET:
        items.append(
            f"Accepted with warnings after {cycle.writer_cycles} revision(s): evidence coverage "
            f"{cycle.metrics['evidence_coverage']:.0%} is under the "
            f"{COVERAGE_TARGET:.0%} target; unsupported claims (ledger #"
            + ", #".join(map(str, unsupported)) + ") are flagged.")
    if unsupported:
        items.append(f"{len(unsupported)} claim(s) could not be fully verified against the "
                     "sources.")
    dates = [c.last_updated for c in result.chunks if c.last_updated]
    if dates:
        items.append(f"Sources are as of their own dates (oldest {min(dates).isoformat()}); "
                     "later amendments are not reflected.")
    return items


def answer_summary(text: str) -> str:
    """An earlier answer for working memory: citations removed, at most
    ``ANSWER_SUMMARY_CHARS`` characters (cut at a word)."""
    flat = " ".join(strip_citations(text).split())
    if len(flat) <= ANSWER_SUMMARY_CHARS:
        return flat
    return flat[:ANSWER_SUMMARY_CHARS].rsplit(" ", 1)[0] + " …"


def ranked(chunks: list[RetrievedChunk]) -> list[RetrievedChunk]:
    """``chunks`` in their order with ``rank`` renumbered from 1."""
    return [replace(c, rank=i) for i, c in enumerate(chunks, 1)]


def earlier_cited_chunks(
    earlier: list[Turn], current: list[RetrievedChunk], *, workspace, cap: int
) -> list[RetrievedChunk]:
    """The chunks earlier turns of the session cited, most recent turn first, that are
    not in ``current`` and still exist in ``workspace`` (a replaced document's chunks are
    gone), as their turns saw them; at most ``cap`` − len(current) of them."""
    room = cap - len(current)
    seen = {c.chunk_id for c in current}
    wanted: dict[str, dict] = {}
    for turn in reversed(earlier):
        cited = set(cited_ids(turn.answer_markdown))
        for source in turn.sources:
            if source["chunk_id"] in cited and source["chunk_id"] not in seen:
                wanted.setdefault(source["chunk_id"], source)
    if room <= 0 or not wanted:
        return []
    live = dict(Chunk.objects.filter(document__workspace=workspace, chunk_id__in=wanted)
                .values_list("chunk_id", "pk"))
    carried = []
    # A snapshot holds derived keys too (``pinpoint``, issue 13): keep the fields only.
    names = {f.name for f in fields(RetrievedChunk)}
    for chunk_id, source in wanted.items():
        if chunk_id in live:
            updated = source["last_updated"]
            carried.append(RetrievedChunk(**{
                **{k: v for k, v in source.items() if k in names}, "chunk_pk": live[chunk_id],
                "last_updated": dt.date.fromisoformat(updated) if updated else None,
                "heading_path": tuple(source.get("heading_path") or ()),
            }))
    return carried[:room]
