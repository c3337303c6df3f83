"""Research sessions: ``GET|POST /api/v1/sessions/``, ``GET /api/v1/sessions/<id>/``,
``POST /api/v1/sessions/<id>/turns/``, ``GET /api/v1/sessions/<id>/turns/<n>/state/``,
``POST /api/v1/sessions/<id>/turns/<n>/cancel/``."""

from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from ciq.api.errors import Conflict
from ciq.api.filters import SessionFilter
from ciq.api.serializers.sessions import (
    FollowUpSerializer,
    RunStateSerializer,
    SessionCreateSerializer,
    SessionDetailSerializer,
    SessionSerializer,
    SessionStartedSerializer,
    websocket_url,
)
from sessions.models import ResearchSession, Turn
from sessions.run_state import run_state
from sessions.selectors import session_get_for_user, session_list_for_user
from sessions.services import TurnEnded, TurnRunning, followup_start, session_start, turn_cancel

# The services call the question "question"; the API, as the issue does, "query".
QUESTION_FIELDS = {"question": "query"}


def started(request, turn: Turn) -> Response:
    """201 with the session id, the status of the run just queued, the websocket URL
    and the new turn."""
    session = turn.session
    data = SessionStartedSerializer({
        "id": session.pk, "status": turn.status,
        "websocket_url": websocket_url(request, session.pk),
        "turn": {"index": turn.index, "question": turn.question, "status": turn.status},
    }).data
    location = request.build_absolute_uri(reverse("api:session-detail", args=[session.pk]))
    return Response(data, status=status.HTTP_201_CREATED, headers={"Location": location})


class SessionListView(generics.ListAPIView):
    """Sessions of the caller's workspaces, newest first; ``POST`` starts a new one."""

    queryset = ResearchSession.objects.none()  # the model, for the schema; rows: get_queryset
    serializer_class = SessionSerializer
    filterset_class = SessionFilter
    service_error_fields = QUESTION_FIELDS

    def get_queryset(self):
        return session_list_for_user(user=self.request.user)

    @extend_schema(request=SessionCreateSerializer, responses={201: SessionStartedSerializer})
    def post(self, request):
        """Create a session and queue its first turn. The run streams on the websocket
        and is stored: poll the detail or the events endpoint. A workspace that is not
        the caller's is refused like one that does not exist (400 on ``workspace``)."""
        form = SessionCreateSerializer(data=request.data, context={"request": request})
        form.is_valid(raise_exception=True)
        data = form.validated_data
        turn = session_start(
            workspace=data["workspace"], question=data["query"], user=request.user,
            mode=data["mode"], verification_mode=data["verification_mode"],
            jurisdictions=data["jurisdictions"],
        )
        return started(request, turn)


class SessionDetailView(generics.RetrieveAPIView):
    """A session with every turn: answer, citations, ledger, confidences, metrics."""

    queryset = ResearchSession.objects.none()
    serializer_class = SessionDetailSerializer
    filter_backends: list = []

    def get_queryset(self):
        return session_list_for_user(user=self.request.user)


class TurnCreateView(APIView):
    """``POST /api/v1/sessions/<id>/turns/``: ask a follow-up in the same session."""

    service_error_fields = QUESTION_FIELDS

    @extend_schema(request=FollowUpSerializer, responses={
        201: SessionStartedSerializer,
        409: OpenApiResponse(description="The previous turn is still running."),
    })
    def post(self, request, pk: int):
        """Queue a follow-up turn. 409 while the previous turn is still running (one run
        writes a session's log at a time)."""
        session = session_get_for_user(user=request.user, session_id=pk)
        form = FollowUpSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            turn = followup_start(session=session, question=form.validated_data["query"], user=request.user)
        except TurnRunning as exc:
            raise Conflict("The previous turn is still running; ask again when it is done.") from exc
        return started(request, turn)


def _turn(request, pk: int, index: int) -> Turn:
    """The turn ``index`` of a session the caller may read; 404 otherwise."""
    session = session_get_for_user(user=request.user, session_id=pk)
    turn = session.turns.filter(index=index).first()
    if turn is None:
        raise Http404("No such turn.")
    return turn


class TurnStateView(APIView):
    """``GET /api/v1/sessions/<id>/turns/<n>/state/``: what the turn is doing."""

    @extend_schema(responses={200: RunStateSerializer})
    def get(self, request, pk: int, index: int):
        """Queued (place in the queue, waiting for a worker), running (stage, elapsed),
        cancelling, or ended (the failure code in words)."""
        return Response(RunStateSerializer(run_state(turn=_turn(request, pk, index))).data)


class TurnCancelView(APIView):
    """``POST /api/v1/sessions/<id>/turns/<n>/cancel/``: stop a queued or running turn."""

    @extend_schema(request=None, responses={
        202: RunStateSerializer,
        409: OpenApiResponse(description="The turn has already ended."),
    })
    def post(self, request, pk: int, index: int):
        """A queued turn ends ``cancelled`` at once; a running one stops at its next
        step, keeping what it completed (poll the state URL). 403 for a viewer."""
        try:
            turn = turn_cancel(turn=_turn(request, pk, index), user=request.user)
        except TurnEnded as exc:
            raise Conflict(exc.messages[0]) from exc
        return Response(RunStateSerializer(run_state(turn=turn)).data, status=status.HTTP_202_ACCEPTED)
