"""The Ask page (the home page): a new research session, the user's recent sessions
in the workspace and example questions drawn from its documents."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from ciq.permissions import capabilities
from ciq.selectors import workspace_get_for_user
from ciq.web.forms import AskForm
from ciq.web.selectors import example_questions, session_recent_list
from ciq.web.views.workspaces import workspace_remember
from retrieval.selectors import jurisdictions_known
from sessions.services import session_start


@login_required
@require_http_methods(["GET", "POST"])
def ask(request: HttpRequest, workspace_id: int) -> HttpResponse:
    """GET: the question form, the user's five newest sessions here and up to three
    example questions (none for a workspace without ready documents). POST: start a
    session and open its page, which fills live; refused input is shown with its
    message and the form keeps what was typed."""
    workspace = workspace_get_for_user(user=request.user, workspace_id=workspace_id)
    workspace_remember(request, workspace)
    form = AskForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            turn = session_start(workspace=workspace, user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return redirect("session", turn.session_id)
    return render(request, "web/ask.html", {
        "workspace": workspace, "form": form, "can": capabilities(user=request.user, workspace=workspace),
        "known_jurisdictions": sorted(jurisdictions_known(workspace=workspace) - {"private"}),
        "recent_sessions": session_recent_list(user=request.user, workspace=workspace),
        "examples": example_questions(workspace=workspace),
    }, status=400 if form.errors else 200)
