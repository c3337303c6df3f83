"""Audit checks over a session's stored records (DESIGN.md §3; issue 11, "the audit chain").

The event log is a sha256 hash chain (``sessions.events``). On its own it covers only
the events, so an edited answer, a flipped verdict or a changed owner would pass, and
whoever can write the database can rewrite the whole chain with fresh hashes. Two
additions close that:

1. **Seals.** When a turn ends (completed or error) :func:`turn_seal` appends a
   ``turn_sealed`` event whose payload holds ``digest`` = sha256 of the canonical JSON
   of the turn's stored record (:func:`turn_record`: session owner, workspace, mode and
   jurisdictions; the turn's question, answer, status, outcome, error, sources,
   confidences, metrics, working memory, lists; every revision; every claim with its
   ledger entry) and the turn's event range (``from_seq``..``to_seq``: the turn
   boundary). The seal is in the hash chain, so the digest cannot be changed either.
2. **An anchor outside the database.** Each seal also appends one line to
   ``settings.AUDIT_HEADS_FILE`` (``var/audit/heads.log``): ``{"session", "created",
   "turn", "seq", "hash", "hmac"}``, ``hmac`` = HMAC-SHA256 over the other fields with
   ``settings.AUDIT_HMAC_KEY`` (or the key generated into ``AUDIT_HMAC_KEY_FILE``).
   The file is only ever appended to. Without the key, a line cannot be forged.

:func:`session_log_verify` recomputes all of it: the chain, each turn's recorded head,
each seal's digest from today's rows, that every ended turn is sealed in order, that
nothing follows the last seal once no turn runs, and that the head file's lines for the
session are authentic and still match the log (and that every seal is in the file).
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import logging
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from ciq.keyfile import key_file_read_or_create
from sessions.events import EventLog, canonical_json, event_chain_verify
from sessions.models import EventType, ResearchSession, RunStatus, Turn

logger = logging.getLogger(__name__)

DIGEST_VERSION = 1
ENDED = (RunStatus.COMPLETED, RunStatus.ERROR, RunStatus.CANCELLED)
_TURN_FIELDS = (
    "index", "question", "answer_markdown", "status", "outcome", "answerability", "error",
    "sources", "retrieval_confidence", "claim_confidence", "metrics", "working_memory",
    "suggested_followups", "assumptions", "limitations", "permits", "synthesis",
)
# The ledger's ``evidence`` foreign key is left out on purpose: it is set to null when
# the cited document is replaced or deleted (``evidence_chunk_id`` keeps the citation).
_LEDGER_FIELDS = (
    "verdict", "score", "confidence", "level", "evidence_chunk_id", "snippet", "reasoning",
    "supporting_chunk_ids", "contradicting_chunk_ids", "verification_ms", "relevance",
    "addressed",
)


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def turn_record(turn: Turn) -> dict:
    """The JSON-ready record of ``turn`` that its seal's digest covers, read from the
    database (so sealing and verifying read exactly the same rows). Shape:
    ``{"v", "session": {...}, "turn": {...}, "revisions": [...], "claims": [...]}``."""
    from verification.models import Claim  # verification imports sessions' models

    session = ResearchSession.objects.get(pk=turn.session_id)
    row = Turn.objects.get(pk=turn.pk)
    claims = (Claim.objects.filter(turn=row).select_related("ledger", "revision")
              .order_by("revision__cycle", "index", "pk"))
    return {
        "v": DIGEST_VERSION,
        "session": {
            "id": session.pk, "workspace": session.workspace_id, "owner": session.user_id,
            "title": session.title, "mode": session.mode,
            "verification_mode": session.verification_mode,
            "jurisdictions": session.jurisdictions, "created": _iso(session.created),
        },
        "turn": {**{name: getattr(row, name) for name in _TURN_FIELDS},
                 "created": _iso(row.created), "completed": _iso(row.completed),
                 # only when known, so the digests of turns sealed before the field hold
                 **({"asked_by": row.asked_by_id} if row.asked_by_id else {})},
        "revisions": [{"cycle": r.cycle, "text": r.text, "coverage": r.coverage}
                      for r in row.revisions.order_by("cycle")],
        "claims": [{
            "revision": c.revision.cycle if c.revision_id else None,
            "index": c.index, "text": c.text, "type": c.type,
            "span": [c.span_start, c.span_end], "cited_chunk_ids": c.cited_chunk_ids,
            "substantive_words": c.substantive_words,
            "ledger": ({name: getattr(c.ledger, name) for name in _LEDGER_FIELDS}
                       if hasattr(c, "ledger") else None),
        } for c in claims],
    }


def turn_digest(turn: Turn) -> str:
    """sha256 hex of the canonical JSON of :func:`turn_record`."""
    return hashlib.sha256(canonical_json(turn_record(turn)).encode("utf-8")).hexdigest()


# --- the key and the head file ------------------------------------------------------------


def audit_key() -> bytes:
    """The HMAC key: ``settings.AUDIT_HMAC_KEY``, else the contents of
    ``settings.AUDIT_HMAC_KEY_FILE``, generated (64 hex characters, mode 0600) on first
    use, exactly once even when two processes start together."""
    if settings.AUDIT_HMAC_KEY:
        return settings.AUDIT_HMAC_KEY.encode("utf-8")
    path = Path(settings.AUDIT_HMAC_KEY_FILE)
    return key_file_read_or_create(path, lambda: secrets.token_hex(32)).encode("utf-8")


_HEAD_KEYS = ("session", "created", "turn", "seq", "hash")


def head_hmac(head: dict) -> str:
    """HMAC-SHA256 hex, under :func:`audit_key`, of the canonical JSON of a head line's
    fields (session id, session creation time, turn index, seq, event hash)."""
    message = canonical_json({k: head[k] for k in _HEAD_KEYS}).encode("utf-8")
    return hmac.new(audit_key(), message, hashlib.sha256).hexdigest()


def head_append(head: dict) -> None:
    """Append one signed line to ``settings.AUDIT_HEADS_FILE`` (created 0600), under an
    exclusive lock, flushed to disk before returning. Raises ``OSError``."""
    path = Path(settings.AUDIT_HEADS_FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({**head, "hmac": head_hmac(head)}, sort_keys=True) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)


def heads_read(session_id: int) -> list[tuple[int, dict | None]]:
    """The head file's lines for ``session_id`` as ``(line number, head)``; a line that
    is not valid JSON is returned with ``None`` (and belongs to every session, since its
    session cannot be read)."""
    path = Path(settings.AUDIT_HEADS_FILE)
    if not path.exists():
        return []
    found = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                head = json.loads(line)
            except ValueError:
                found.append((number, None))
                continue
            if isinstance(head, dict) and head.get("session") == session_id:
                found.append((number, head))
    return found


# --- sealing -----------------------------------------------------------------------------


def turn_seal(*, turn: Turn) -> None:
    """Seal ``turn`` once it has ended: append a ``turn_sealed`` event (digest of
    :func:`turn_record`, owner, workspace, the turn's event range) to the chain, record
    it as the turn's log head (``Turn.log_seq``/``log_hash``), and append the signed
    head to the head file.

    Called by the pipeline after every run and by stalled-run recovery. Never raises (a
    run must end whatever happens here): a failure is logged, and the verification then
    reports the turn as unsealed or its seal as not anchored.
    """
    try:
        turn = Turn.objects.select_related("session").get(pk=turn.pk)
        if turn.status not in ENDED:
            return
        session = turn.session
        previous = session.events.filter(type=EventType.TURN_SEALED).order_by("-seq").first()
        log = EventLog(session)
        event = log.emit(
            EventType.TURN_SEALED, sealed_turn=turn.index, status=turn.status,
            owner=session.user_id, workspace=session.workspace_id,
            from_seq=previous.seq + 1 if previous else 1, to_seq=log.seq,
            digest=turn_digest(turn), digest_version=DIGEST_VERSION,
        )
        Turn.objects.filter(pk=turn.pk).update(log_seq=event.seq, log_hash=event.hash)
    except Exception:
        logger.exception("Could not seal turn %s", turn.pk)
        return
    try:
        head_append({"session": session.pk, "created": _iso(session.created),
                     "turn": turn.index, "seq": event.seq, "hash": event.hash})
    except Exception:
        logger.exception("Could not anchor the seal of turn %s in %s", turn.pk,
                         settings.AUDIT_HEADS_FILE)


# --- verification -------------------------------------------------------------------------


@dataclass
class AuditResult:
    """What :func:`session_audit` found. ``problems``: one sentence each, empty when
    intact. ``sealed_seq``: seq of the last seal (0 if none). ``head_seq``: seq of the
    last event. ``running``: a turn is still pending or running (its events after the
    last seal are not covered yet)."""

    problems: list[str] = field(default_factory=list)
    sealed_seq: int = 0
    head_seq: int = 0
    running: bool = False

    @property
    def intact(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """One line for a person: "intact (…)" or "BROKEN: …"."""
        if self.problems:
            return "BROKEN: " + "; ".join(self.problems)
        note = f"intact: chain, turn seals and head file check out up to seq {self.sealed_seq}"
        if self.head_seq > self.sealed_seq:
            note += (f"; seq {self.sealed_seq + 1}–{self.head_seq} belong to the turn still "
                     "running and are not sealed yet")
        return note


def session_audit(*, session: ResearchSession) -> AuditResult:
    """Verify ``session``'s record (see the module docstring for what is checked).

    Detected: an edited, inserted, deleted or reordered event; a truncated log or one
    rewritten with fresh hashes (seal and head file); an edited answer, question,
    source snapshot, confidence, metric, revision, claim or ledger entry of an ended
    turn; a changed owner, workspace, mode or jurisdictions; a deleted turn; an ended
    turn without a seal; an event appended after the last seal when no turn runs; a
    forged, edited or deleted head-file line of a sealed turn.
    """
    result = AuditResult()
    events = list(session.events.order_by("seq"))
    turns = {t.index: t for t in session.turns.order_by("index")}
    anchors = [(t.log_seq, t.log_hash) for t in turns.values() if t.log_seq]
    problems = result.problems
    problems.extend(event_chain_verify(events, anchors))
    by_seq = {e.seq: e for e in events}
    result.head_seq = events[-1].seq if events else 0
    result.running = any(t.status not in ENDED for t in turns.values())

    seals = [e for e in events if e.type == EventType.TURN_SEALED]
    sealed: set[int] = set()
    expected_from = 1
    for seal in seals:
        p = seal.payload
        index = p.get("sealed_turn")
        where = f"seal at seq {seal.seq} (turn {index})"
        if p.get("from_seq") != expected_from or p.get("to_seq") != seal.seq - 1:
            problems.append(f"{where}: turn boundary {p.get('from_seq')}–{p.get('to_seq')} "
                            f"does not follow the previous seal (expected {expected_from}–"
                            f"{seal.seq - 1})")
        expected_from = seal.seq + 1
        if p.get("owner") != session.user_id:
            problems.append(f"{where}: session owner changed (sealed user id {p.get('owner')}, "
                            f"now {session.user_id})")
        if p.get("workspace") != session.workspace_id:
            problems.append(f"{where}: workspace changed (sealed {p.get('workspace')}, "
                            f"now {session.workspace_id})")
        turn = turns.get(index)
        if turn is None:
            problems.append(f"{where}: the turn is missing (deleted)")
            continue
        if index in sealed:
            problems.append(f"{where}: turn sealed twice")
        sealed.add(index)
        if turn_digest(turn) != p.get("digest"):
            problems.append(f"{where}: the turn's stored record (answer, sources, claims, "
                            "ledger, owner or settings) differs from what was sealed")
    result.sealed_seq = seals[-1].seq if seals else 0
    for index, turn in turns.items():
        if turn.status in ENDED and index not in sealed:
            problems.append(f"turn {index}: ended ({turn.status}) but has no seal")
    if result.head_seq > result.sealed_seq and not result.running:
        problems.append(f"seq {result.sealed_seq + 1}–{result.head_seq}: event(s) after the "
                        "last sealed turn while no turn runs (appended afterwards)")

    anchored: set[tuple[int, str]] = set()
    for number, head in heads_read(session.pk):
        where = f"head file line {number}"
        if head is None or not isinstance(head.get("hmac"), str) or \
                any(k not in head for k in _HEAD_KEYS):
            problems.append(f"{where}: unreadable")
            continue
        if head["created"] != _iso(session.created):
            # Another database's session with the same id (a test or evaluation run
            # sharing the file). A session re-created to hide a rewrite still shows:
            # its seals are then not anchored (below).
            continue
        if not hmac.compare_digest(head_hmac(head), head["hmac"]):
            problems.append(f"{where}: signature does not match (forged or edited line)")
            continue
        event = by_seq.get(head["seq"])
        if event is None or event.hash != head["hash"] or event.type != EventType.TURN_SEALED:
            problems.append(f"{where}: seal of turn {head['turn']} at seq {head['seq']} is "
                            "missing or changed in the log (truncated or rewritten)")
            continue
        anchored.add((head["seq"], head["hash"]))
    for seal in seals:
        if (seal.seq, seal.hash) not in anchored:
            problems.append(f"seal at seq {seal.seq} (turn {seal.payload.get('sealed_turn')}): "
                            "not anchored in the head file (forged seal or rewritten log)")
    return result


def session_log_verify(*, session: ResearchSession) -> list[str]:
    """The problems :func:`session_audit` finds in ``session``'s record, one sentence
    each; an empty list means intact."""
    return session_audit(session=session).problems
