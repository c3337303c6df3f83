"""Research-session input (create, follow-up, query strings) and output (list, detail
with turns, ledger, events)."""

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ciq.api.serializers.workspaces import UserWorkspaceField
from exports.services import FORMATS
from sessions.models import Mode, Outcome, ResearchSession, RunStatus, VerificationMode
from sessions.selectors import turn_as_dict

QUESTION_HELP = (
    f"The question or drafting request: not empty, at most MAX_QUESTION_CHARS "
    f"({settings.MAX_QUESTION_CHARS:,}) characters after trimming."
)
MAX_SEQ = 2**31 - 1  # seq and turn numbers are database integers


def websocket_url(request, session_id: int) -> str:
    """The absolute websocket URL of a session's live events: ``ws://`` or, behind TLS,
    ``wss://`` on the request's host."""
    scheme = "wss" if request.is_secure() else "ws"
    return f"{scheme}://{request.get_host()}/ws/sessions/{session_id}/"


class SessionCreateSerializer(serializers.Serializer):
    """``{workspace, query, mode, verification_mode, jurisdictions}``: a new session and
    its first turn. The question itself is checked by ``sessions.services.question_clean``
    and the codes by ``jurisdictions_clean`` (errors come back under ``query`` and
    ``jurisdictions``)."""

    workspace = UserWorkspaceField()
    query = serializers.CharField(allow_blank=True, trim_whitespace=False, help_text=QUESTION_HELP)
    mode = serializers.ChoiceField(
        choices=Mode.choices, default=Mode.ANSWER,
        error_messages={"invalid_choice": "Unknown mode “{input}”: use answer or draft."},
    )
    verification_mode = serializers.ChoiceField(
        choices=VerificationMode.choices, default=VerificationMode.STRICT,
        error_messages={"invalid_choice": "Unknown verification mode “{input}”: use strict or helpful."},
    )
    jurisdictions = serializers.ListField(
        child=serializers.CharField(max_length=100), default=list, max_length=20,
        help_text="Target jurisdiction codes known to the workspace (e.g. US-OR-Rivergrove).",
    )


class FollowUpSerializer(serializers.Serializer):
    """``{query}``: a follow-up question in the same session."""

    query = serializers.CharField(allow_blank=True, trim_whitespace=False, help_text=QUESTION_HELP)


class TurnBriefSerializer(serializers.Serializer):
    """A turn as it starts: number, question, status."""

    index = serializers.IntegerField()
    question = serializers.CharField()
    status = serializers.ChoiceField(choices=RunStatus.choices)


class SessionStartedSerializer(serializers.Serializer):
    """Answer to a create or follow-up: where to follow the run live."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=RunStatus.choices)
    websocket_url = serializers.CharField(
        help_text="ws(s)://host/ws/sessions/<id>/ — add ?after=<seq> to resume.")
    turn = TurnBriefSerializer()


class SessionSerializer(serializers.ModelSerializer):
    """A session in a list: settings, status and number of turns."""

    workspace_name = serializers.CharField(source="workspace.name", read_only=True)
    user = serializers.SlugRelatedField(slug_field="username", read_only=True)
    turn_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = ResearchSession
        fields = ["id", "workspace", "workspace_name", "user", "title", "mode",
                  "verification_mode", "jurisdictions", "status", "turn_count", "created",
                  "completed"]
        read_only_fields = fields


class LedgerRowSerializer(serializers.Serializer):
    """One claim of the evidence ledger with the Judge's verdict (DESIGN.md §1)."""

    index = serializers.IntegerField()
    claim = serializers.CharField()
    type = serializers.CharField()
    span = serializers.ListField(child=serializers.IntegerField(), help_text="[start, end) in the answer")
    cited_chunk_ids = serializers.ListField(child=serializers.CharField())
    verdict = serializers.CharField(help_text="supported | weak | not_found | contradicted")
    score = serializers.FloatField(help_text="Judge score in [0, 1].")
    confidence = serializers.FloatField(help_text="Claim confidence in [0, 1].")
    level = serializers.CharField(help_text="high | medium | low | very_low")
    evidence_chunk_id = serializers.CharField()
    pinpoint = serializers.CharField(
        allow_blank=True,
        help_text='Pinpoint citation of the evidence chunk ("12 CFR § 1006.8"); "" without evidence.')
    snippet = serializers.CharField()
    reasoning = serializers.CharField()
    supporting_chunk_ids = serializers.ListField(child=serializers.CharField())
    contradicting_chunk_ids = serializers.ListField(child=serializers.CharField())
    relevance = serializers.FloatField(help_text="Relevance to the question's facets in [0, 1].")
    addressed = serializers.ListField(child=serializers.IntegerField(),
                                      help_text="Indices of the question's facets the claim addresses.")


class CitationSerializer(serializers.Serializer):
    """A numbered citation of the answer and the source it points at."""

    number = serializers.IntegerField()
    chunk_id = serializers.CharField()
    document_title = serializers.CharField(allow_null=True)
    citation_label = serializers.CharField(allow_null=True)
    jurisdiction = serializers.CharField(allow_null=True)
    jurisdiction_level = serializers.CharField(allow_null=True)
    page_start = serializers.IntegerField(allow_null=True)
    page_end = serializers.IntegerField(allow_null=True)
    lane = serializers.CharField(allow_null=True)
    pinpoint = serializers.CharField(
        allow_null=True,
        help_text="Pinpoint citation: document, section and pages (\"12 CFR § 1006.8\", "
                  "\"Services And Hosting Agreement § 7.2, p. 4\"); null for an unknown chunk.")


class RevisionSerializer(serializers.Serializer):
    """One revision cycle of the answer and its evidence coverage in [0, 1]."""

    cycle = serializers.IntegerField()
    coverage = serializers.FloatField()
    text = serializers.CharField()


class TurnSerializer(serializers.Serializer):
    """A whole turn (``sessions.selectors.turn_as_dict`` without events): answer,
    citations, sources, ledger, both confidences, metrics and working memory."""

    turn = serializers.IntegerField(help_text="Turn number, 1 for the first question.")
    question = serializers.CharField()
    asked_by = serializers.CharField(
        allow_null=True, help_text="Username of who asked this turn (a colleague's follow-up is theirs).")
    status = serializers.ChoiceField(choices=RunStatus.choices)
    error = serializers.CharField()
    outcome = serializers.ChoiceField(
        choices=[*Outcome.choices, ("", "Not yet known")],
        help_text="answered | partial | not_answered (empty while the turn runs).")
    answer_coverage = serializers.FloatField(
        allow_null=True, help_text="Facets of the question addressed by supported claims, in [0, 1].")
    answerability = serializers.DictField(
        help_text="The question analysis: kind, facets (each with `addressed`), places, parties.")
    answer_markdown = serializers.CharField(help_text="The answer with [cite:CHUNK_ID] markers.")
    citations = CitationSerializer(many=True)
    sources = serializers.ListField(child=serializers.DictField())
    ledger = LedgerRowSerializer(many=True)
    retrieval_confidence = serializers.DictField()
    claim_confidence = serializers.DictField()
    metrics = serializers.DictField()
    working_memory = serializers.DictField()
    suggested_followups = serializers.ListField(child=serializers.CharField())
    assumptions = serializers.ListField(child=serializers.CharField())
    limitations = serializers.ListField(child=serializers.CharField())
    revisions = RevisionSerializer(many=True)


class SessionDetailSerializer(SessionSerializer):
    """A session with every turn in full and its websocket URL."""

    websocket_url = serializers.SerializerMethodField()
    turns = serializers.SerializerMethodField()

    class Meta(SessionSerializer.Meta):
        fields = [*SessionSerializer.Meta.fields, "websocket_url", "turns"]
        read_only_fields = fields

    def get_websocket_url(self, session) -> str:
        return websocket_url(self.context["request"], session.pk)

    @extend_schema_field(TurnSerializer(many=True))
    def get_turns(self, session) -> list[dict]:
        turns = session.turns.order_by("index")
        return TurnSerializer([turn_as_dict(turn=t, with_events=False) for t in turns], many=True).data


class LedgerSerializer(serializers.Serializer):
    """The evidence ledger of one turn with its claim confidence and metrics."""

    session = serializers.IntegerField()
    turn = serializers.IntegerField()
    outcome = serializers.CharField(help_text="answered | partial | not_answered (empty while running).")
    ledger = LedgerRowSerializer(many=True)
    claim_confidence = serializers.DictField()
    metrics = serializers.DictField()


class EventsPageSerializer(serializers.Serializer):
    """Stored events after ``after`` in seq order (DESIGN.md §4 messages); ask again with
    ``after=last_seq`` while ``has_more``."""

    session = serializers.IntegerField()
    after = serializers.IntegerField()
    last_seq = serializers.IntegerField(help_text="Seq of the last event returned (or `after`).")
    has_more = serializers.BooleanField()
    events = serializers.ListField(
        child=serializers.DictField(), help_text='{"type", "session", "seq", "ts", ...payload}')


class EventsQuerySerializer(serializers.Serializer):
    """``?after=<seq>&limit=<n>``."""

    after = serializers.IntegerField(min_value=0, max_value=MAX_SEQ, default=0)
    limit = serializers.IntegerField(min_value=1, max_value=1000, default=500)


class LedgerQuerySerializer(serializers.Serializer):
    """``?turn=<n>``: the turn (default the latest)."""

    turn = serializers.IntegerField(min_value=1, max_value=MAX_SEQ, required=False)


class ExportQuerySerializer(serializers.Serializer):
    """``?format=md|pdf|json|docx``."""

    format = serializers.ChoiceField(
        choices=FORMATS,
        error_messages={"invalid_choice": "Unknown format “{input}”: use " + ", ".join(FORMATS) + "."},
    )


class RunStateSerializer(serializers.Serializer):
    """What a turn is doing (``sessions.run_state.run_state``)."""

    status = serializers.ChoiceField(choices=RunStatus.choices)
    text = serializers.CharField(help_text="One line for a person: queued, running, cancelling, ended.")
    elapsed_s = serializers.FloatField(allow_null=True, help_text="Seconds queued or running.")
    stage = serializers.CharField(allow_null=True)
    position = serializers.IntegerField(allow_null=True, help_text="Place among all queued runs.")
    waiting_for_worker = serializers.BooleanField()
    cancelling = serializers.BooleanField()
    error_code = serializers.CharField(allow_blank=True)
    error_words = serializers.CharField(allow_blank=True)
    ended = serializers.BooleanField()
