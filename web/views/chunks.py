"""A cited chunk: its document, pages and text with the evidence highlighted."""

from __future__ import annotations

from types import SimpleNamespace

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from retrieval.models import JurisdictionLevel, page_label
from retrieval.pinpoint import pinpoint_label
from retrieval.selectors import chunk_get
from sessions.selectors import session_get_for_user, source_pinpoint
from verification.models import LedgerEntry
from web.rendering import highlighted


@login_required
@require_GET
def chunk_detail(request: HttpRequest, session_id: int, chunk_id: str) -> HttpResponse:
    """The chunk ``chunk_id`` cited in the session: document, page, pinpoint citation
    (``retrieval.pinpoint``), and the snippets the Judge took from it in this session
    highlighted (404 outside the user's workspaces). A chunk whose document was since
    replaced or deleted is shown as the session's turns stored it (``Turn.sources``),
    marked as such; 404 if no turn of the session had it."""
    session = session_get_for_user(user=request.user, session_id=session_id)
    try:
        chunk = chunk_get(workspace=session.workspace, chunk_id=chunk_id)
    except Http404:
        chunk, document, pinpoint = _snapshot(session, chunk_id.lower())
        retired = True
    else:
        document, retired = chunk.document, False
        pinpoint = pinpoint_label(
            citation_label=document.citation_label, title=document.title,
            jurisdiction_level=document.jurisdiction_level, heading=chunk.heading,
            page_start=chunk.page_start, page_end=chunk.page_end,
        )
    snippets = list(
        LedgerEntry.objects.filter(claim__turn__session=session, evidence_chunk_id=chunk.chunk_id)
        .exclude(snippet="").values_list("snippet", flat=True).distinct()
    )
    return render(request, "web/chunk.html", {
        "workspace": session.workspace, "session": session, "chunk": chunk,
        "document": document, "pinpoint": pinpoint, "text": highlighted(chunk.text, snippets),
        "highlighted": bool(snippets), "retired": retired,
    })


def _snapshot(session, chunk_id: str) -> tuple[SimpleNamespace, SimpleNamespace, str]:
    """(chunk, document, pinpoint) as the latest turn of ``session`` that had
    ``chunk_id`` in its context stored them, shaped like the model rows the template
    reads; ``Http404`` when no turn had it."""
    for turn in session.turns.order_by("-index"):
        source = next((s for s in turn.sources if s.get("chunk_id") == chunk_id), None)
        if source is None:
            continue
        level = source.get("jurisdiction_level") or JurisdictionLevel.PRIVATE
        document = SimpleNamespace(
            pk=source.get("document_id"), title=source.get("document_title", ""),
            citation_label=source.get("citation_label", ""),
            jurisdiction=source.get("jurisdiction", ""),
            get_jurisdiction_level_display=JurisdictionLevel(level).label,
        )
        chunk = SimpleNamespace(
            chunk_id=chunk_id, ordinal=source.get("ordinal", "–"),
            text=source.get("text", ""), heading=source.get("heading", ""),
            pages=page_label(source.get("page_start"), source.get("page_end")),
        )
        return chunk, document, source_pinpoint(source)
    raise Http404("No such chunk in this session.")
