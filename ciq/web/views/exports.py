"""Session export downloads (Markdown, PDF, JSON, DOCX)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from exports.services import session_export
from sessions.selectors import session_get_for_user


@login_required
@require_POST
def session_export_view(request: HttpRequest, session_id: int, fmt: str) -> HttpResponse:
    """Download the session as ``fmt`` (md, pdf, json, docx) and record the export;
    POST because each export is recorded. 404 for an unknown format or a session
    outside the user's workspaces."""
    session = session_get_for_user(user=request.user, session_id=session_id)
    try:
        result = session_export(session=session, fmt=fmt, user=request.user)
    except ValidationError as exc:
        raise Http404("No such export format.") from exc
    response = HttpResponse(result.content, content_type=result.content_type)
    response["Content-Disposition"] = f'attachment; filename="{result.filename}"'
    return response
