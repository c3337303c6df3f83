"""Session reads: the ledger of a turn and whole-turn views for output and export."""

from __future__ import annotations

from django.db.models import QuerySet

from sessions.events import event_message
from sessions.models import Turn
from verification.citations import citation_numbers
from verification.models import Claim


def turn_ledger(*, turn: Turn) -> QuerySet[Claim]:
    """Claims of the turn's final revision with their ledger entries, in text order."""
    final = turn.revisions.order_by("-cycle").first()
    return (
        Claim.objects.filter(turn=turn, revision=final)
        .select_related("ledger")
        .order_by("index")
    )


def turn_as_dict(*, turn: Turn, with_events: bool = True) -> dict:
    """The whole turn as JSON-ready data: question, answer, sources, claims with their
    ledger entries, confidences, metrics, working memory and (optionally) events."""
    session = turn.session
    sources = {s["chunk_id"]: s for s in turn.sources}
    numbers = citation_numbers(turn.answer_markdown)
    data = {
        "session": session.pk,
        "workspace": session.workspace.name,
        "turn": turn.index,
        "question": turn.question,
        "mode": session.mode,
        "verification_mode": session.verification_mode,
        "jurisdictions": session.jurisdictions,
        "status": turn.status,
        "error": turn.error,
        "answer_markdown": turn.answer_markdown,
        "citations": [
            {"number": n, "chunk_id": cid, **{k: sources.get(cid, {}).get(k) for k in (
                "document_title", "citation_label", "jurisdiction", "jurisdiction_level",
                "page_start", "page_end", "lane")}}
            for cid, n in numbers.items()
        ],
        "sources": turn.sources,
        "ledger": [
            {
                "index": c.index, "claim": c.text, "type": c.type,
                "span": [c.span_start, c.span_end], "cited_chunk_ids": c.cited_chunk_ids,
                "verdict": c.ledger.verdict, "score": c.ledger.score,
                "confidence": c.ledger.confidence, "level": c.ledger.level,
                "evidence_chunk_id": c.ledger.evidence_chunk_id, "snippet": c.ledger.snippet,
                "reasoning": c.ledger.reasoning,
                "supporting_chunk_ids": c.ledger.supporting_chunk_ids,
                "contradicting_chunk_ids": c.ledger.contradicting_chunk_ids,
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
        "revisions": [
            {"cycle": r.cycle, "coverage": r.coverage, "text": r.text}
            for r in turn.revisions.order_by("cycle")
        ],
    }
    if with_events:
        data["events"] = [event_message(e) for e in session.events.order_by("seq")]
    return data
