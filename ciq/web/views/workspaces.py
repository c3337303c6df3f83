"""Home and the workspace switcher."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from ciq.models import Workspace
from ciq.selectors import workspace_get_for_user, workspace_list_for_user

SESSION_KEY = "ciq_workspace_id"


def workspace_remember(request: HttpRequest, workspace: Workspace) -> None:
    """Remember ``workspace`` as the one the user works in (shown in the switcher)."""
    request.session[SESSION_KEY] = workspace.pk


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Open the remembered workspace's Ask page (else the first workspace's); a user
    without a workspace sees a page saying so."""
    workspaces = workspace_list_for_user(user=request.user)
    remembered = workspaces.filter(pk=request.session.get(SESSION_KEY)).first()
    workspace = remembered or workspaces.first()
    if workspace is None:
        return render(request, "web/no_workspace.html")
    return redirect("ask", workspace.pk)


@login_required
@require_POST
def workspace_switch(request: HttpRequest) -> HttpResponse:
    """Switch to the posted ``workspace`` (404 unless a member) and open its Ask page."""
    try:
        workspace_id = int(request.POST.get("workspace", ""))
    except ValueError:
        workspace_id = 0
    workspace = workspace_get_for_user(user=request.user, workspace_id=workspace_id)
    workspace_remember(request, workspace)
    return redirect("ask", workspace.pk)
