"""A cited chunk: its document, pages and text with the evidence highlighted."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from retrieval.selectors import chunk_get
from sessions.selectors import session_get_for_user
from verification.models import LedgerEntry
from web.rendering import highlighted


@login_required
@require_GET
def chunk_detail(request: HttpRequest, session_id: int, chunk_id: str) -> HttpResponse:
    """The chunk ``chunk_id`` cited in the session: document, page, and the snippets
    the Judge took from it in this session highlighted (404 outside the user's
    workspaces)."""
    session = session_get_for_user(user=request.user, session_id=session_id)
    chunk = chunk_get(workspace=session.workspace, chunk_id=chunk_id)
    snippets = list(
        LedgerEntry.objects.filter(claim__turn__session=session, evidence_chunk_id=chunk.chunk_id)
        .exclude(snippet="").values_list("snippet", flat=True).distinct()
    )
    return render(request, "web/chunk.html", {
        "workspace": session.workspace, "session": session, "chunk": chunk,
        "document": chunk.document, "text": highlighted(chunk.text, snippets),
        "highlighted": bool(snippets),
    })
