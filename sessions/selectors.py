"""Session reads: access scoped to the user's workspaces, the ledger of a turn and
whole-turn views for output and export.

"Not yours" and "does not exist" look the same (``Http404``): every read starts from
:func:`ciq.selectors.workspace_list_for_user` (STYLE.md habit 3).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from ciq.models import Workspace
from ciq.selectors import workspace_list_for_user
from retrieval.models import heading_for_pinpoint
from retrieval.pinpoint import pinpoint_label
from sessions.events import event_message
from sessions.models import ResearchSession, Turn
from verification.citations import citation_numbers
from verification.models import Claim


def session_list_for_user(*, user: AbstractBaseUser) -> QuerySet[ResearchSession]:
    """Sessions of every workspace ``user`` belongs to (anyone's in the workspace), newest
    first, with ``workspace`` and ``user`` joined and ``turn_count`` annotated."""
    return (
        ResearchSession.objects.filter(workspace__in=workspace_list_for_user(user=user))
        .select_related("workspace", "user")
        .annotate(turn_count=Count("turns"))
        .order_by("-created", "-pk")
    )


def session_get_for_user(*, user: AbstractBaseUser, session_id: int) -> ResearchSession:
    """The session ``session_id`` if ``user`` is a member of its workspace (any member may
    read it); ``Http404`` otherwise."""
    return get_object_or_404(session_list_for_user(user=user), pk=session_id)


def session_history_for_user(*, user: AbstractBaseUser, workspace: Workspace,
                             query: str = "") -> QuerySet[ResearchSession]:
    """The user's own sessions in ``workspace``, newest first, with ``turn_count`` and
    the turns prefetched.

    ``query`` (optional) keeps sessions whose title or any question contains it
    (case-insensitive); ``turn_count`` still counts all their turns. The caller has
    checked membership of ``workspace``.
    """
    sessions = ResearchSession.objects.filter(workspace=workspace, user=user)
    query = query.strip()
    if query:
        # A subquery, not a join on turns: the join would leave only the matching turns
        # for ``turn_count`` to count (issue 14).
        matching = Turn.objects.filter(question__icontains=query).values("session_id")
        sessions = sessions.filter(Q(title__icontains=query) | Q(pk__in=matching))
    return (
        sessions.annotate(turn_count=Count("turns"))
        .prefetch_related("turns")
        .order_by("-created", "-pk")
    )


def turn_get(*, session: ResearchSession, index: int | None = None) -> Turn:
    """Turn ``index`` of ``session`` (the latest when ``None``); ``Http404`` if absent."""
    turns = session.turns.order_by("-index")
    if index is not None:
        turns = turns.filter(index=index)
    turn = turns.first()
    if turn is None:
        raise Http404("No such turn.")
    return turn


def turn_ledger(*, turn: Turn) -> QuerySet[Claim]:
    """Claims of the turn's final revision with their ledger entries, in text order."""
    final = turn.revisions.order_by("-cycle").first()
    return (
        Claim.objects.filter(turn=turn, revision=final)
        .select_related("ledger")
        .order_by("index")
    )


def source_pinpoint(source: dict) -> str:
    """The pinpoint citation of a source snapshot (``Turn.sources`` item): as stored when
    the turn ran, or computed now (:func:`retrieval.pinpoint.pinpoint_label`) for a
    snapshot written before pinpoints were stored. The stored snapshot is never
    rewritten: the turn's audit seal covers it."""
    if "pinpoint" in source:
        return source["pinpoint"]
    return pinpoint_label(
        citation_label=source.get("citation_label"), title=source.get("document_title"),
        jurisdiction_level=source.get("jurisdiction_level"),
        heading=heading_for_pinpoint(source.get("heading"), source.get("heading_path")),
        page_start=source.get("page_start"), page_end=source.get("page_end"),
    )


def turn_as_dict(*, turn: Turn, with_events: bool = True) -> dict:
    """The whole turn as JSON-ready data: question, answer, sources, claims with their
    ledger entries, confidences, metrics, working memory and (optionally) events.

    Every source, citation and ledger row carries ``pinpoint`` (:func:`source_pinpoint`;
    ``None`` for a citation of an unknown chunk, "" for a row without evidence)."""
    session = turn.session
    snapshot = [{**s, "pinpoint": source_pinpoint(s)} for s in turn.sources]  # copies
    sources = {s["chunk_id"]: s for s in snapshot}
    numbers = citation_numbers(turn.answer_markdown)
    data = {
        "session": session.pk,
        "workspace": session.workspace.name,
        "turn": turn.index,
        "question": turn.question,
        "asked_by": turn.asked_by.get_username() if turn.asked_by_id else None,
        "mode": session.mode,
        "verification_mode": session.verification_mode,
        "jurisdictions": session.jurisdictions,
        "status": turn.status,
        "error": turn.error,
        "outcome": turn.outcome,
        "answer_coverage": (turn.metrics or {}).get("answer_coverage"),
        "answerability": turn.answerability,
        "answer_markdown": turn.answer_markdown,
        "citations": [
            {"number": n, "chunk_id": cid, **{k: sources.get(cid, {}).get(k) for k in (
                "document_title", "citation_label", "jurisdiction", "jurisdiction_level",
                "page_start", "page_end", "lane", "pinpoint")}}
            for cid, n in numbers.items()
        ],
        "sources": snapshot,
        "ledger": [
            {
                "index": c.index, "claim": c.text, "type": c.type,
                "span": [c.span_start, c.span_end], "cited_chunk_ids": c.cited_chunk_ids,
                "verdict": c.ledger.verdict, "score": c.ledger.score,
                "confidence": c.ledger.confidence, "level": c.ledger.level,
                "evidence_chunk_id": c.ledger.evidence_chunk_id,
                "pinpoint": sources.get(c.ledger.evidence_chunk_id, {}).get("pinpoint", ""),
                "snippet": c.ledger.snippet,
                "reasoning": c.ledger.reasoning,
                "supporting_chunk_ids": c.ledger.supporting_chunk_ids,
                "contradicting_chunk_ids": c.ledger.contradicting_chunk_ids,
                "relevance": c.ledger.relevance, "addressed": c.ledger.addressed,
            }
            for c in turn_ledger(turn=turn)
        ],
        "retrieval_confidence": turn.retrieval_confidence,
        "claim_confidence": turn.claim_confidence,
        "metrics": turn.metrics,
        "working_memory": turn.working_memory,
        "suggested_followups": turn.suggested_followups,
        "assumptions": turn.assumptions,
        "limitations": turn.limitations,
        "permits": turn.permits,
        "synthesis": turn.synthesis,
        "revisions": [
            {"cycle": r.cycle, "coverage": r.coverage, "text": r.text, "author": r.author,
             "edits": r.edits}
            for r in turn.revisions.order_by("cycle")
        ],
    }
    if with_events:
        data["events"] = [event_message(e) for e in session.events.order_by("seq")]
    return data
