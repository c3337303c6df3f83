"""A session's stored records: ``GET …/sessions/<id>/events/``, ``…/ledger/`` and
``…/export/``."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from ciq.api.serializers.sessions import (
    EventsPageSerializer,
    EventsQuerySerializer,
    ExportQuerySerializer,
    LedgerQuerySerializer,
    LedgerSerializer,
)
from exports.services import FORMATS, session_export
from sessions.events import event_message
from sessions.selectors import session_get_for_user, turn_as_dict, turn_get


class SessionEventsView(APIView):
    """The stored event log of a session after ``after`` (DESIGN.md §4), at most
    ``limit`` events: the replay a websocket client gets on reconnect."""

    @extend_schema(parameters=[EventsQuerySerializer], responses=EventsPageSerializer)
    def get(self, request, pk: int):
        session = session_get_for_user(user=request.user, session_id=pk)
        query = EventsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after, limit = query.validated_data["after"], query.validated_data["limit"]
        events = list(session.events.filter(seq__gt=after).order_by("seq")[: limit + 1])
        page = events[:limit]
        return Response(EventsPageSerializer({
            "session": session.pk, "after": after,
            "last_seq": page[-1].seq if page else after,
            "has_more": len(events) > limit,
            "events": [event_message(e) for e in page],
        }).data)


class SessionLedgerView(APIView):
    """The evidence ledger of a turn (default: the latest): every claim of the final
    revision with its verdict, score, confidence and evidence."""

    @extend_schema(parameters=[LedgerQuerySerializer], responses=LedgerSerializer)
    def get(self, request, pk: int):
        session = session_get_for_user(user=request.user, session_id=pk)
        query = LedgerQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        turn = turn_get(session=session, index=query.validated_data.get("turn"))
        data = turn_as_dict(turn=turn, with_events=False)
        return Response(LedgerSerializer({**data, "session": session.pk}).data)


class IgnoreClientContentNegotiation(BaseContentNegotiation):
    """Always the view's first renderer: here ``?format=`` names the export format, not
    a DRF renderer (DRF's documented pattern for custom negotiation)."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class SessionExportView(APIView):
    """The session as a file: Markdown, PDF, JSON or DOCX (``exports.services``)."""

    content_negotiation_class = IgnoreClientContentNegotiation

    @extend_schema(
        parameters=[OpenApiParameter("format", OpenApiTypes.STR, enum=list(FORMATS), required=True)],
        responses={200: OpenApiResponse(OpenApiTypes.BINARY, description="The export file."),
                   400: OpenApiResponse(description="Unknown or missing format.")},
    )
    def get(self, request, pk: int):
        session = session_get_for_user(user=request.user, session_id=pk)
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        result = session_export(session=session, fmt=query.validated_data["format"], user=request.user)
        response = HttpResponse(result.content, content_type=result.content_type)
        response["Content-Disposition"] = f'attachment; filename="{result.filename}"'
        return response
