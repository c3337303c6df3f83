"""The audit chain covers what an auditor relies on (issue 11, finding 6): each tamper
kind of the attack run is re-run here and must be reported by the check, the admin
action and every export."""

from __future__ import annotations

import json
import os

import pytest

from exports.services import session_export
from sessions.audit import session_audit, session_log_verify
from sessions.events import EventLog, event_hash, event_message
from sessions.models import EventType, RunStatus, SessionEvent, Turn
from sessions.pipeline import turn_run
from sessions.recovery import turns_stalled_fail
from sessions.services import session_ask, session_create, turn_create
from verification.models import LedgerEntry, Verdict

pytestmark = pytest.mark.django_db

QUESTION = "What are the standards for a dock?"


@pytest.fixture
def session(demo_workspace, owner):
    """Two completed turns of the owner's session."""
    first = session_ask(workspace=demo_workspace, user=owner, question=QUESTION)
    second = turn_run(turn_create(session=first.session, question="Is a permit needed?"))
    assert first.status == second.status == RunStatus.COMPLETED
    assert LedgerEntry.objects.filter(claim__turn=first).exists()
    first.session.refresh_from_db()
    return first.session


def rewrite_log(session) -> None:
    """What someone with write access to the database (and this code) can do: recompute
    every seal's digest from the edited rows and every event's hash from the start, and
    move each turn's recorded head along."""
    try:
        from sessions.audit import turn_digest
    except ImportError:  # before seals existed there was nothing to recompute
        turn_digest = None
    previous = "0" * 64
    new_hash = {}
    for event in session.events.order_by("seq"):
        if event.type == "turn_sealed" and turn_digest is not None:
            turn = session.turns.get(index=event.payload["sealed_turn"])
            event.payload = {**event.payload, "digest": turn_digest(turn),
                             "owner": session.user_id}
        event.hash = event_hash(previous, event_message(event))
        event.save()
        new_hash[event.seq] = previous = event.hash
    for turn in session.turns.exclude(log_seq=None):
        Turn.objects.filter(pk=turn.pk).update(log_hash=new_hash.get(turn.log_seq, ""))


def edit_answer(session, member):
    Turn.objects.filter(session=session, index=2).update(
        answer_markdown="Docks need no permit and no inspection.")


def flip_verdict(session, member):
    entry = LedgerEntry.objects.filter(claim__turn__session=session).first()
    flipped = Verdict.CONTRADICTED if entry.verdict == Verdict.SUPPORTED else Verdict.SUPPORTED
    LedgerEntry.objects.filter(pk=entry.pk).update(verdict=flipped, score=1.0)


def delete_last_turn(session, member):
    first = session.turns.get(index=1)
    session.turns.filter(index=2).delete()
    session.events.filter(seq__gt=first.log_seq).delete()


def append_forged_event(session, member):
    EventLog(session).emit(EventType.GENERATION_COMPLETE, turn=2, outcome="answered",
                           answer_markdown="Docks need no permit.")


def change_owner(session, member):
    type(session).objects.filter(pk=session.pk).update(user=member)


def rewrite_everything(session, member):
    edit_answer(session, member)
    flip_verdict(session, member)
    change_owner(session, member)
    session.refresh_from_db()
    rewrite_log(session)


TAMPERING = [edit_answer, flip_verdict, delete_last_turn, append_forged_event, change_owner,
             rewrite_everything]


def test_an_untouched_session_verifies_and_its_exports_say_so(session):
    assert session_log_verify(session=session) == []
    data = json.loads(session_export(session=session, fmt="json").content)
    assert data["event_log"]["intact"] is True
    assert "chain verified" in session_export(session=session, fmt="md").content.decode()


@pytest.mark.parametrize("tamper", TAMPERING, ids=lambda f: f.__name__)
def test_every_tamper_kind_is_detected_and_every_export_says_broken(session, member, tamper):
    tamper(session, member)
    session.refresh_from_db()
    problems = session_log_verify(session=session)
    assert problems, f"{tamper.__name__} went unnoticed"
    data = json.loads(session_export(session=session, fmt="json").content)
    assert data["event_log"]["intact"] is False and data["event_log"]["problems"] == problems
    for fmt in ("md", "docx"):
        content = session_export(session=session, fmt=fmt).content
        text = content.decode() if fmt == "md" else docx_text(content)
        assert "CHAIN BROKEN" in text


def docx_text(content: bytes) -> str:
    import io

    from docx import Document

    document = Document(io.BytesIO(content))
    cells = [c.text for t in document.tables for r in t.rows for c in r.cells]
    return "\n".join([p.text for p in document.paragraphs] + cells)


def test_each_problem_names_what_was_changed(session, member):
    edit_answer(session, member)
    change_owner(session, member)
    session.refresh_from_db()
    problems = session_log_verify(session=session)
    assert any("(turn 2): the turn's stored record" in p for p in problems)
    assert any("session owner changed" in p for p in problems)


def test_a_rewritten_log_is_caught_only_by_the_head_file(session, member):
    rewrite_everything(session, member)
    session.refresh_from_db()
    problems = session_log_verify(session=session)
    assert problems and all("head file" in p for p in problems), problems


def test_a_deleted_turn_with_its_seal_shows_in_the_head_file(session, member):
    delete_last_turn(session, member)
    problems = session_log_verify(session=session)
    assert any("missing or changed in the log (truncated or rewritten)" in p for p in problems)


def test_each_ended_turn_is_sealed_with_a_signed_head_line(session, audit_heads_file):
    seals = list(session.events.filter(type=EventType.TURN_SEALED).order_by("seq"))
    assert [s.payload["sealed_turn"] for s in seals] == [1, 2]
    assert seals[0].payload["from_seq"] == 1
    assert seals[1].payload["from_seq"] == seals[0].seq + 1
    assert seals[-1].seq == session.events.order_by("-seq").first().seq
    assert [(t.log_seq, t.log_hash) for t in session.turns.order_by("index")] == \
        [(s.seq, s.hash) for s in seals]
    lines = [json.loads(line) for line in audit_heads_file.read_text().splitlines()]
    assert [(h["session"], h["turn"], h["seq"], h["hash"]) for h in lines] == \
        [(session.pk, s.payload["sealed_turn"], s.seq, s.hash) for s in seals]


def test_a_forged_or_dropped_head_line_is_reported(session, audit_heads_file):
    lines = audit_heads_file.read_text().splitlines()
    forged = {**json.loads(lines[1]), "hash": "f" * 64}
    audit_heads_file.write_text(lines[0] + "\n" + json.dumps(forged) + "\n")
    problems = session_log_verify(session=session)
    assert "head file line 2: signature does not match (forged or edited line)" in problems
    audit_heads_file.write_text(lines[0] + "\n")
    seal = session.events.filter(type=EventType.TURN_SEALED).order_by("-seq").first()
    assert session_log_verify(session=session) == [
        f"seal at seq {seal.seq} (turn 2): not anchored in the head file (forged seal or "
        "rewritten log)"]


def test_a_running_turn_is_not_reported_until_it_ends(session):
    turn = turn_create(session=session, question="And a boathouse?")
    EventLog(session).emit(EventType.REASONING_THOUGHT, text="Planning", turn=turn.index)
    audit = session_audit(session=session)
    assert audit.intact and audit.running and "not sealed yet" in audit.summary()
    Turn.objects.filter(pk=turn.pk).update(status=RunStatus.COMPLETED)
    assert "turn 3: ended (completed) but has no seal" in session_log_verify(session=session)


def test_a_stalled_turn_is_sealed_when_recovery_ends_it(demo_workspace, owner):
    import datetime as dt

    from django.utils import timezone

    turn = session_create(workspace=demo_workspace, user=owner, question=QUESTION)
    later = timezone.now() + dt.timedelta(minutes=60)
    assert turns_stalled_fail(session=turn.session, now=later)
    last = turn.session.events.order_by("-seq").first()
    assert last.type == EventType.TURN_SEALED and last.payload["status"] == RunStatus.ERROR
    assert session_log_verify(session=turn.session) == []


def test_the_key_file_is_generated_once_with_mode_0600(settings, tmp_path, session):
    from sessions.audit import audit_key

    settings.AUDIT_HMAC_KEY = ""
    settings.AUDIT_HMAC_KEY_FILE = str(tmp_path / "audit" / "hmac_key")
    key = audit_key()
    assert len(key) == 64 and audit_key() == key
    assert os.stat(settings.AUDIT_HMAC_KEY_FILE).st_mode & 0o777 == 0o600
    # A head signed under another key does not verify.
    assert session_log_verify(session=session)


def test_sealing_never_breaks_a_run(session, settings, tmp_path):
    settings.AUDIT_HEADS_FILE = str(tmp_path)  # a directory: the append fails
    turn = turn_run(turn_create(session=session, question="And a boathouse?"))
    assert turn.status == RunStatus.COMPLETED
    seal = SessionEvent.objects.filter(session=session).order_by("-seq").first()
    assert seal.type == EventType.TURN_SEALED
    settings.AUDIT_HEADS_FILE = str(tmp_path / "missing.log")
    assert any("not anchored in the head file" in p for p in session_log_verify(session=session))


def test_what_is_not_detected_deleting_the_tail_of_both_database_and_head_file(
        session, member, audit_heads_file):
    """Documented limit (README "Security"): whoever can both delete the last turn in the
    database and cut the matching last line off the head file is not detected; keep the
    head file where the database's writers cannot write (or ship it off the machine)."""
    delete_last_turn(session, member)
    lines = audit_heads_file.read_text().splitlines()
    audit_heads_file.write_text(lines[0] + "\n")
    assert session_log_verify(session=session) == []
