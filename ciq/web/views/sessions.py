"""Session pages: history, the live session page, follow-ups and the turn fragment."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ciq.permissions import capabilities
from ciq.selectors import workspace_get_for_user
from ciq.web.forms import FollowupForm, SessionSearchForm
from ciq.web.selectors import replay_after, session_coverage, session_events_by_turn
from ciq.web.turns import turn_view
from ciq.web.views.workspaces import workspace_remember
from sessions.run_state import run_state
from sessions.selectors import session_get_for_user, session_history_for_user
from sessions.services import TurnEnded, followup_start, turn_cancel, turn_retry

EXPORT_FORMATS = [("md", "Markdown"), ("pdf", "PDF"), ("json", "JSON"), ("docx", "Word")]


@login_required
@require_GET
def session_list(request: HttpRequest, workspace_id: int) -> HttpResponse:
    """The user's sessions in the workspace (status, mode, coverage, date), searchable."""
    workspace = workspace_get_for_user(user=request.user, workspace_id=workspace_id)
    workspace_remember(request, workspace)
    form = SessionSearchForm(request.GET)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    sessions = list(session_history_for_user(user=request.user, workspace=workspace, query=query))
    for session in sessions:
        session.coverage = session_coverage(session)
    return render(request, "web/sessions/list.html", {
        "workspace": workspace, "form": form, "sessions": sessions, "query": query,
    })


def _session_context(request: HttpRequest, session_id: int, followup_form=None) -> dict:
    session = session_get_for_user(user=request.user, session_id=session_id)
    turns = list(session.turns.select_related("asked_by").order_by("index"))
    events, last_seq = session_events_by_turn(session=session)
    return {
        "workspace": session.workspace,
        "session": session,
        "turns": [turn_view(turn=t, events=events.get(t.index, [])) for t in turns],
        "after": replay_after(turns=turns, events=events, last_seq=last_seq),
        "followup_form": followup_form or FollowupForm(),
        "export_formats": EXPORT_FORMATS,
        "can": capabilities(user=request.user, workspace=session.workspace),
    }


@login_required
@require_GET
def session_detail(request: HttpRequest, session_id: int) -> HttpResponse:
    """A session's turns from the stored data; unfinished turns fill live over the
    websocket from the seq the page was rendered at."""
    context = _session_context(request, session_id)
    workspace_remember(request, context["workspace"])
    return render(request, "web/sessions/detail.html", context)


@login_required
@require_POST
def session_followup(request: HttpRequest, session_id: int) -> HttpResponse:
    """Start a follow-up turn (form or a suggested follow-up); a refused question is
    shown on the session page with what was typed."""
    session = session_get_for_user(user=request.user, session_id=session_id)
    form = FollowupForm(request.POST)
    if form.is_valid():
        try:
            turn = followup_start(session=session, question=form.cleaned_data["question"], user=request.user)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, "Follow-up started.")
            # Open the page at the new turn, not at the top (issue 14).
            return redirect(f"{reverse('session', args=[session.pk])}#turn-{turn.index}")
    context = _session_context(request, session_id, followup_form=form)
    return render(request, "web/sessions/detail.html", context, status=400)


@login_required
@require_GET
def turn_fragment(request: HttpRequest, session_id: int, index: int) -> HttpResponse:
    """One turn as an HTML fragment (the session page swaps it in when a run ends)."""
    context = _session_context(request, session_id)
    turn = next((t for t in context["turns"] if t["turn"] == index), None)
    if turn is None:
        raise Http404("No such turn.")
    return render(request, "web/sessions/_turn.html", {**context, "turn": turn})


def _turn_for_user(request: HttpRequest, session_id: int, index: int):
    session = session_get_for_user(user=request.user, session_id=session_id)
    turn = session.turns.select_related("session__workspace").filter(index=index).first()
    if turn is None:
        raise Http404("No such turn.")
    return turn


@login_required
@require_GET
def turn_state(request: HttpRequest, session_id: int, index: int) -> JsonResponse:
    """What the turn is doing now (``sessions.run_state.run_state``) as JSON; the page
    polls it while a turn is queued or running."""
    return JsonResponse(run_state(turn=_turn_for_user(request, session_id, index)))


@login_required
@require_POST
def turn_cancel_view(request: HttpRequest, session_id: int, index: int) -> HttpResponse:
    """Cancel a queued or running turn (``sessions.services.turn_cancel``); back to the
    turn on the session page. A viewer gets 403; a turn that already ended, a message."""
    turn = _turn_for_user(request, session_id, index)
    try:
        turn_cancel(turn=turn, user=request.user)
    except TurnEnded as exc:
        messages.info(request, exc.messages[0])
    else:
        messages.success(request, f"Question {turn.index}: cancel requested.")
    return redirect(f"{reverse('session', args=[session_id])}#turn-{index}")


@login_required
@require_POST
def turn_retry_view(request: HttpRequest, session_id: int, index: int) -> HttpResponse:
    """Ask a failed or cancelled turn's question again as a new turn."""
    turn = _turn_for_user(request, session_id, index)
    try:
        retry = turn_retry(turn=turn, user=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect(f"{reverse('session', args=[session_id])}#turn-{index}")
    messages.success(request, f"Question {turn.index} asked again.")
    return redirect(f"{reverse('session', args=[session_id])}#turn-{retry.index}")
