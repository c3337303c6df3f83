"""End-to-end runs of the pipeline on the samples: answer, draft, ledger, events, failures."""

import pytest
from django.core.exceptions import ValidationError

from sessions.events import event_chain_verify
from sessions.models import ResearchSession, RunStatus
from sessions.pipeline import turn_run
from sessions.selectors import turn_ledger
from sessions.services import session_ask, session_create, turn_create
from verification.models import Claim, LedgerEntry

pytestmark = pytest.mark.django_db

QUESTION = "When may a state apply for an exemption from the Fair Debt Collection Practices Act?"


def event_types(session: ResearchSession) -> list[str]:
    return list(session.events.order_by("seq").values_list("type", flat=True))


def test_an_answer_is_cited_verified_and_logged(demo_workspace, owner):
    turn = session_ask(workspace=demo_workspace, question=QUESTION, user=owner)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert "[cite:" in turn.answer_markdown
    ledger = list(turn_ledger(turn=turn))
    assert ledger and all(c.ledger.verdict for c in ledger)
    assert turn.metrics["evidence_coverage"] > 0.5
    assert turn.retrieval_confidence["level"] in {"High", "Medium", "Low"}
    assert turn.claim_confidence["claims"] == len(ledger)
    assert turn.working_memory["sub_goals"]
    types = event_types(turn.session)
    assert types[0] == "session_created" and types[-2:] == ["generation_complete", "turn_sealed"]
    for expected in ("reasoning_thought", "reasoning_action", "retrieval_completed",
                     "reasoning_observation", "content_chunk", "citation_detected",
                     "claim_extracted", "claim_verified", "ledger_updated",
                     "confidence_calculated", "reasoning_conclusion"):
        assert expected in types
    seqs = list(turn.session.events.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert event_chain_verify(turn.session.events.order_by("seq")) == []
    turn.session.refresh_from_db()
    assert turn.session.status == RunStatus.COMPLETED


def test_streamed_content_adds_up_to_the_answer(demo_workspace):
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    chunks = turn.session.events.filter(type="content_chunk", payload__cycle=0).order_by("seq")
    assert "".join(e.payload["delta"] for e in chunks) == chunks.last().payload["full_content"]


def test_a_draft_with_jurisdictions_runs_and_records_revisions(demo_workspace):
    turn = session_ask(
        workspace=demo_workspace, mode="draft", jurisdictions=["US-OR-Rivergrove"],
        question="Draft a memo on tree removal permits and penalties in Rivergrove.",
    )
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert turn.answer_markdown.startswith("# ")
    assert "## Municipal" in turn.answer_markdown
    # The Writer's cycles; a Critic revision may follow them (sessions/critic.py).
    cycles = list(turn.revisions.filter(author="writer").values_list("cycle", flat=True))
    assert cycles[0] == 0 and len(cycles) <= 3
    assert turn.metrics["revision_cycles"] == cycles[-1]
    assert turn.revisions.filter(author="critic", cycle__gt=cycles[-1]).count() <= 1


def test_a_question_outside_the_sources_says_not_answered(demo_workspace):
    turn = session_ask(workspace=demo_workspace, question="quantum chromodynamics of gluons")
    assert turn.status == RunStatus.COMPLETED
    assert turn.outcome == "not_answered"
    assert turn.answer_markdown.startswith("Not answered: the documents searched do not state this")
    assert "Searched: every jurisdiction; no document with a matching passage." in turn.answer_markdown
    assert turn.metrics["evidence_coverage"] == 0.0 and turn.metrics["answer_coverage"] == 0.0
    assert turn.claim_confidence["level"] == "very_low"
    assert "No source passage answered the question." in turn.working_memory["gaps"]


def test_a_follow_up_turn_continues_the_log_and_gets_its_own_ledger(demo_workspace):
    first = session_ask(workspace=demo_workspace, question=QUESTION)
    second = turn_run(turn_create(session=first.session, question="Where is the application filed?"))
    assert second.index == 2 and second.status == RunStatus.COMPLETED
    assert QUESTION in second.working_memory["previous_questions"]
    assert set(turn_ledger(turn=second)).isdisjoint(turn_ledger(turn=first))
    session = first.session
    seqs = list(session.events.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    first.refresh_from_db()
    assert first.log_seq < second.log_seq == seqs[-1]
    anchors = [(t.log_seq, t.log_hash) for t in session.turns.all()]
    assert event_chain_verify(session.events.order_by("seq"), anchors) == []


def test_a_truncated_log_is_caught_by_the_turn_anchor(demo_workspace):
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    events = turn.session.events
    events.filter(seq=turn.log_seq).delete()  # drop the last event: the chain itself still holds
    assert event_chain_verify(events.order_by("seq")) == []
    problems = event_chain_verify(events.order_by("seq"), [(turn.log_seq, turn.log_hash)])
    assert problems == [
        f"seq {turn.log_seq}: anchored hash missing or changed (log truncated or rewritten)"
    ]


def test_an_unknown_role_backend_ends_the_turn_in_error(demo_workspace, settings):
    settings.CIQ_WRITER = "no-such-writer"
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    assert turn.status == RunStatus.ERROR
    assert "CIQ_WRITER='no-such-writer'" in turn.error
    assert turn.session.events.exclude(type="turn_sealed").order_by("-seq").first().type == "error"
    turn.session.refresh_from_db()
    assert turn.session.status == RunStatus.ERROR


def test_a_judge_answering_outside_the_ledger_vocabulary_is_refused(demo_workspace, monkeypatch):
    from ciq import roles
    from verification.judge import Judgement

    class SloppyJudge:
        def verify(self, claim, evidence, *, mode):
            return Judgement("Supported", 0.9, "", "", "", (), (), ())

    real = roles.role_backend
    monkeypatch.setattr("sessions.pipeline.role_backend",
                        lambda role: SloppyJudge() if role == "judge" else real(role))
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    assert turn.status == RunStatus.ERROR
    error = turn.session.events.exclude(type="turn_sealed").order_by("-seq").first()
    assert error.payload["code"] == "bad_backend_output"
    assert "verdict 'Supported' is not one of" in error.payload["message"]
    assert not Claim.objects.filter(turn=turn).exists()


def test_a_citation_split_across_deltas_is_still_detected(demo_workspace, monkeypatch):
    from ciq import roles
    from sessions.writer import ExtractiveWriter

    class ChoppyWriter(ExtractiveWriter):
        """Streams three characters at a time, as a model's tokens may cut a marker."""

        def stream(self, request):
            text = self.compose(request)
            for i in range(0, len(text), 3):
                yield text[i : i + 3]

    real = roles.role_backend
    monkeypatch.setattr("sessions.pipeline.role_backend",
                        lambda role: ChoppyWriter() if role == "writer" else real(role))
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    detected = turn.session.events.filter(type="citation_detected", payload__cycle=0)
    cited = {s["chunk_id"] for s in turn.sources if s["chunk_id"] in turn.answer_markdown}
    assert {e.payload["chunk_id"] for e in detected} == cited
    assert [e.payload["number"] for e in detected.order_by("seq")] == list(range(1, len(cited) + 1))


def test_an_answer_with_targets_stays_within_its_sentence_budget(demo_workspace):
    turn = session_ask(
        workspace=demo_workspace, jurisdictions=["US-OR-Rivergrove"],
        question="What permits and notices apply to development in the floodplain?",
    )
    body = [line for line in turn.answer_markdown.splitlines() if line.strip()]
    sections = [line for line in body if line.startswith("## ")]
    permit_items = [line for line in body if line.startswith("- ")]
    assert not body[0].startswith("#")  # the answer leads with the asked fact, not a heading
    assert len(sections) <= 3 and set(sections) <= {"## Municipal", "## State", "## Federal",
                                                     "## Required permits and licenses"}
    assert len(permit_items) <= 2
    assert len(turn_ledger(turn=turn)) <= 4 + 2


@pytest.mark.parametrize("kwargs, field", [
    ({"question": "   "}, "question"),
    ({"question": "x" * 100_000}, "question"),
    ({"question": QUESTION, "mode": "essay"}, "mode"),
    ({"question": QUESTION, "verification_mode": "lenient"}, "verification_mode"),
    ({"question": QUESTION, "jurisdictions": ["US-ZZ"]}, "jurisdictions"),
    ({"question": QUESTION, "jurisdictions": ["US OR; drop"]}, "jurisdictions"),
])
def test_bad_input_is_refused_with_a_message_and_writes_nothing(demo_workspace, kwargs, field):
    before = ResearchSession.objects.count()
    with pytest.raises(ValidationError) as caught:
        session_create(workspace=demo_workspace, **kwargs)
    assert field in caught.value.message_dict
    assert ResearchSession.objects.count() == before


def test_a_judge_failure_ends_the_turn_with_an_error_event_and_keeps_the_text(
    demo_workspace, monkeypatch
):
    from ciq import roles

    class BrokenJudge:
        def verify(self, claim, evidence, *, mode):
            raise TimeoutError("judge timed out after 30 s")

    real = roles.role_backend
    monkeypatch.setattr("sessions.pipeline.role_backend",
                        lambda role: BrokenJudge() if role == "judge" else real(role))
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    assert turn.status == RunStatus.ERROR
    assert "verify: judge timed out after 30 s" in turn.error
    last = turn.session.events.exclude(type="turn_sealed").order_by("-seq").first()
    assert last.type == "error"
    assert last.payload["code"] == "internal_error" and last.payload["stage"] == "verify"
    # Internal details stay in Turn.error (for operators), not in the client-facing event.
    assert last.payload["message"] == "verify: internal error (TimeoutError)"
    assert turn.session.events.filter(type="content_chunk").exists()
    assert event_chain_verify(turn.session.events.order_by("seq")) == []
    # No half-written ledger: the failing cycle wrote no claims.
    assert not Claim.objects.filter(turn=turn).exists()
    assert not LedgerEntry.objects.filter(claim__turn=turn).exists()
    turn.session.refresh_from_db()
    assert turn.session.status == RunStatus.ERROR


def test_an_unsupported_claim_triggers_one_revision_that_drops_it(demo_workspace, monkeypatch):
    from ciq import roles
    from verification.judge import Judgement

    real_judge = roles.role_backend("judge")
    rejected: list[str] = []

    class StrictOnFirstClaim:
        """Rejects the first claim it sees, as a Judge that found no evidence would."""

        def verify(self, claim, evidence, *, mode):
            if not rejected:
                rejected.append(claim.text)
            if claim.text == rejected[0]:
                return Judgement("not_found", 0.0, "", "", "No evidence.", (), (),
                                 tuple(0.0 for _ in claim.substantive_words))
            return real_judge.verify(claim, evidence, mode=mode)

    real = roles.role_backend
    monkeypatch.setattr("sessions.pipeline.role_backend",
                        lambda role: StrictOnFirstClaim() if role == "judge" else real(role))
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert list(turn.revisions.values_list("cycle", flat=True)) == [0, 1]
    started = turn.session.events.get(type="revision_started")
    assert started.payload["cycle"] == 1 and started.payload["unsupported"] == rejected
    assert rejected[0] not in turn.answer_markdown
    assert turn.metrics["revision_cycles"] == 1
    assert all(c.ledger.verdict == "supported" for c in turn_ledger(turn=turn))
    first, final = turn.revisions.order_by("cycle")
    assert final.coverage > first.coverage
