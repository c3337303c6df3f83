"""The whole session as JSON-ready data: the ``ciq.session/1`` export and the one read
that every other format is built from.

Shape: ``exports/schemas/ciq.session-1.schema.json`` (a test validates against it).
"""

from __future__ import annotations

import datetime as dt
import functools

import ciq
from sessions.audit import session_log_verify
from sessions.events import event_message
from sessions.models import ResearchSession
from sessions.selectors import turn_as_dict
from verification.citations import cited_ids

SCHEMA = "ciq.session/1"


@functools.cache
def ciq_version() -> str:
    """CIQ's version (``ciq.__version__``, kept equal to ``pyproject.toml``'s)."""
    return ciq.__version__


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value else None


def _username(user) -> str | None:
    return user.get_username() if user else None


def _chunks_cited(turns: list[dict]) -> list[dict]:
    """Every chunk cited in the answers, numbered in order of first citation across the
    session (these numbers are the footnotes of the Markdown, PDF and DOCX exports)."""
    cited: dict[str, dict] = {}
    for turn in turns:
        sources = {s["chunk_id"]: s for s in turn["sources"]}
        for chunk_id in cited_ids(turn["answer_markdown"]):
            if chunk_id in cited:
                if turn["turn"] not in cited[chunk_id]["turns"]:
                    cited[chunk_id]["turns"].append(turn["turn"])
                continue
            source = sources.get(chunk_id, {})
            cited[chunk_id] = {
                "number": len(cited) + 1,
                "chunk_id": chunk_id,
                "known": bool(source),
                "turns": [turn["turn"]],
                **{k: source.get(k) for k in (
                    "document_title", "citation_label", "jurisdiction", "jurisdiction_level",
                    "lane", "heading", "page_start", "page_end", "pinpoint", "text")},
            }
    return list(cited.values())


def session_data(*, session: ResearchSession, user=None, exported_at: dt.datetime) -> dict:
    """The ``ciq.session/1`` document of ``session``: metadata, every turn (question,
    answer with ``[cite:ID]`` markers, sources, ledger, confidences, metrics, working
    memory, revisions), the chunks cited, every event, and the event log's head hash
    with the result of the audit check (``sessions.audit.session_log_verify``: the hash
    chain, each turn's seal against its stored rows, and the head file).

    ``user`` is who exports (``None`` for a command or system export). Times are ISO 8601.
    """
    turn_rows = list(session.turns.order_by("index"))
    turns = []
    for turn in turn_rows:
        data = turn_as_dict(turn=turn, with_events=False)
        for key in ("session", "workspace", "mode", "verification_mode", "jurisdictions"):
            data.pop(key)  # session-level fields, stated once in "session"
        turns.append({
            **data, "created": _iso(turn.created), "completed": _iso(turn.completed),
            "log_seq": turn.log_seq, "log_hash": turn.log_hash,
        })
    events = list(session.events.order_by("seq"))
    problems = session_log_verify(session=session)
    head = events[-1] if events else None
    return {
        "schema": SCHEMA,
        "generator": {"name": "CIQ", "version": ciq_version()},
        "exported_at": exported_at.isoformat(),
        "exported_by": _username(user),
        "session": {
            "id": session.pk,
            "title": session.title,
            "workspace": {"id": session.workspace_id, "name": session.workspace.name},
            "user": _username(session.user),
            "mode": session.mode,
            "verification_mode": session.verification_mode,
            "jurisdictions": session.jurisdictions,
            "status": session.status,
            "created": _iso(session.created),
            "completed": _iso(session.completed),
        },
        "event_log": {
            "count": len(events),
            "head_seq": head.seq if head else 0,
            "head_hash": head.hash if head else "",
            "intact": not problems,
            "problems": problems,
        },
        "turns": turns,
        "chunks_cited": _chunks_cited(turns),
        "events": [event_message(e) for e in events],
    }
