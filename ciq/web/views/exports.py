"""Session export downloads (Markdown, PDF, JSON, DOCX)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.views.decorators.http import require_POST

from exports.memo import memo_fields_parse
from exports.services import session_export
from sessions.selectors import session_get_for_user


@login_required
@require_POST
def session_export_view(request: HttpRequest, session_id: int, fmt: str) -> HttpResponse:
    """Download the session as ``fmt`` (md, pdf, json, docx) and record the export;
    POST because each export is recorded. The optional fields ``to``, ``from``, ``date``
    and ``re`` fill a Draft memo's header in the file (``exports.memo``). 404 for an
    unknown format or a session outside the user's workspaces; 400 for a field too long."""
    session = session_get_for_user(user=request.user, session_id=session_id)
    try:
        memo = memo_fields_parse(request.POST)
    except ValidationError as exc:
        return HttpResponseBadRequest("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items()),
                                      content_type="text/plain")
    try:
        result = session_export(session=session, fmt=fmt, user=request.user, memo=memo)
    except ValidationError as exc:
        raise Http404("No such export format.") from exc
    response = HttpResponse(result.content, content_type=result.content_type)
    response["Content-Disposition"] = f'attachment; filename="{result.filename}"'
    return response
