"""A cited chunk: as a page of its own, and as the session page's side panel (issue 14,
item 1): its document, pages, pinpoint and text with the evidence highlighted, the
neighbouring chunks and the document's outline."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ciq.web.citations import citation_panel_get_for_user


@login_required
@require_GET
def chunk_detail(request: HttpRequest, session_id: int, chunk_id: str) -> HttpResponse:
    """The chunk ``chunk_id`` cited in the session (``web.citations.Panel``), as a page:
    404 outside the user's workspaces. A chunk whose document was since replaced or
    deleted is shown as the session's turns stored it (``Turn.sources``), marked as
    such; a chunk the session cites but never stored says so (never a 404)."""
    panel = citation_panel_get_for_user(user=request.user, session_id=session_id,
                                        chunk_id=chunk_id)
    return render(request, "web/chunk.html", {
        "workspace": panel.session.workspace, "session": panel.session, "panel": panel,
    })


@login_required
@require_GET
def chunk_panel(request: HttpRequest, session_id: int, chunk_id: str) -> HttpResponse:
    """The same as :func:`chunk_detail` as an HTML fragment for the session page's side
    panel (``static/ciq/citations.js``); the same access check and 404s."""
    panel = citation_panel_get_for_user(user=request.user, session_id=session_id,
                                        chunk_id=chunk_id)
    return render(request, "web/sessions/_citation_panel.html", {
        "session": panel.session, "panel": panel,
    })
