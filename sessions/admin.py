"""Research sessions in the admin, for audit: every row read-only, the evidence ledger
with links to the cited chunks and documents, a hash-chain check of the event log and
exports of the selected sessions."""

from __future__ import annotations

import io
import zipfile

from django.contrib import admin, messages
from django.db.models import FloatField, OuterRef, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.http import HttpResponse
from django.utils.html import format_html, format_html_join

from ciq.admin import ReadOnlyAdminMixin
from ciq.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from exports.services import FORMATS, session_export
from retrieval.admin import chunk_link
from retrieval.models import Chunk
from sessions.audit import session_audit
from sessions.models import Outcome, ResearchSession, Revision, SessionEvent, Turn
from sessions.selectors import turn_ledger
from verification.admin import ClaimInline

MAX_PROBLEMS_SHOWN = 10


def latest_turn_metric(key: str) -> Subquery:
    """A session annotation: ``metrics[key]`` of its latest turn, as a float (or null)."""
    turns = Turn.objects.filter(session=OuterRef("pk")).order_by("-index")
    return Subquery(turns.values(value=Cast(KT(f"metrics__{key}"), FloatField()))[:1])


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


class TurnInline(ReadOnlyAdminMixin, admin.StackedInline):
    model = Turn
    extra = 0
    fields = ["index", "status", "outcome", "question", "answer_markdown", "error", "answerability",
              "retrieval_confidence", "claim_confidence", "metrics", "log_seq", "log_hash", "created",
              "completed"]
    readonly_fields = fields
    show_change_link = True


class EventInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = SessionEvent
    extra = 0
    fields = ["seq", "type", "created", "summary", "hash"]
    readonly_fields = fields
    ordering = ["seq"]
    show_change_link = True

    @admin.display(description="Payload")
    def summary(self, event):
        text = ", ".join(f"{k}={v!r}" for k, v in event.payload.items())
        return text if len(text) <= 160 else text[:159] + "…"


def export_response(sessions, fmt: str, user) -> HttpResponse:
    """One session: its file. Several: a zip of their files (``session_export`` each,
    so every file is recorded as an ExportRecord)."""
    results = [session_export(session=s, fmt=fmt, user=user) for s in sessions]
    if len(results) == 1:
        content, content_type, filename = results[0].content, results[0].content_type, results[0].filename
    else:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for result in results:
                archive.writestr(result.filename, result.content)
        content, content_type, filename = buffer.getvalue(), "application/zip", f"ciq-sessions-{fmt}.zip"
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def export_action(fmt: str):
    """The admin action "Export selected sessions as <fmt>"."""

    @admin.action(description=f"Export selected sessions as {fmt.upper()}", permissions=["view"])
    def action(modeladmin, request, queryset):
        # The queryset is the user's workspaces' (WorkspaceScopedAdmin): a selection of
        # another firm's sessions arrives here empty, and gets no (empty) zip.
        sessions = list(queryset.order_by("pk"))
        if not sessions:
            modeladmin.message_user(request, "No session to export.", messages.WARNING)
            return None
        return export_response(sessions, fmt, request.user)

    action.__name__ = f"export_{fmt}"
    return action


class LatestOutcomeFilter(admin.SimpleListFilter):
    """Sessions by the outcome of their latest turn (the annotation of the list)."""

    title = "outcome of the latest turn"
    parameter_name = "outcome"

    def lookups(self, request, model_admin):
        return Outcome.choices

    def queryset(self, request, queryset):
        return queryset.filter(outcome=self.value()) if self.value() else queryset


@admin.register(ResearchSession)
class ResearchSessionAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Sessions for audit: coverage and contradiction rate of the latest turn in the
    list, the turns, the ledger and the event log on the page, a chain check action."""

    list_display = ["title", "user", "workspace", "mode", "verification_mode", "status", "outcome",
                    "coverage", "contradiction_rate", "created"]
    list_filter = ["status", LatestOutcomeFilter, "mode", "verification_mode", WorkspaceListFilter,
                   ("user", admin.RelatedOnlyFieldListFilter), "created"]
    search_fields = ["title", "turns__question", "turns__answer_markdown"]
    list_select_related = ["workspace", "user"]
    date_hierarchy = "created"
    readonly_fields = ["event_log", "ledger"]
    inlines = [TurnInline, EventInline]
    actions = ["verify_event_log", *(export_action(fmt) for fmt in FORMATS)]

    def get_queryset(self, request):
        latest = Turn.objects.filter(session=OuterRef("pk")).order_by("-index")
        return super().get_queryset(request).annotate(
            coverage=latest_turn_metric("evidence_coverage"),
            contradiction_rate=latest_turn_metric("contradiction_rate"),
            outcome=Subquery(latest.values("outcome")[:1]),
        )

    @admin.display(description="Outcome", ordering="outcome")
    def outcome(self, session):
        return Outcome(session.outcome).label if session.outcome else "—"

    @admin.display(description="Coverage", ordering="coverage")
    def coverage(self, session):
        return percent(session.coverage)

    @admin.display(description="Contradictions", ordering="contradiction_rate")
    def contradiction_rate(self, session):
        return percent(session.contradiction_rate)

    @admin.display(description="Event log check")
    def event_log(self, session):
        audit = session_audit(session=session)
        if audit.intact:
            return audit.summary().capitalize() + "."
        return format_html("<strong>Broken:</strong><ul>{}</ul>",
                           format_html_join("", "<li>{}</li>", ((p,) for p in audit.problems)))

    @admin.display(description="Evidence ledger")
    def ledger(self, session):
        turns = [(turn, list(turn_ledger(turn=turn))) for turn in session.turns.order_by("index")]
        chunk_ids = {cid for _, claims in turns for c in claims
                     for cid in [*c.cited_chunk_ids, c.ledger.evidence_chunk_id] if cid}
        chunks = {c.chunk_id: c for c in Chunk.objects.filter(
            document__workspace=session.workspace_id, chunk_id__in=chunk_ids).select_related("document")}

        def link(chunk_id: str) -> str:
            if not chunk_id:
                return "—"
            chunk = chunks.get(chunk_id)
            return chunk_link(chunk) if chunk else format_html("<code>{}</code> (gone)", chunk_id)

        def row(turn: Turn, claim) -> tuple:
            entry = claim.ledger
            cited = format_html_join(", ", "{}", ((link(cid),) for cid in claim.cited_chunk_ids))
            return (f"{turn.index}.{claim.index}", claim.text, claim.type, entry.verdict,
                    f"{entry.score:.2f}", f"{entry.relevance:.2f}", f"{entry.confidence:.2f} {entry.level}",
                    link(entry.evidence_chunk_id), cited)

        outcomes = format_html_join(
            "", "<li>Turn {}: <strong>{}</strong> (answer coverage {})</li>",
            ((t.index, Outcome(t.outcome).label if t.outcome else "—",
              percent((t.metrics or {}).get("answer_coverage"))) for t, _ in turns))
        rows = format_html_join("", "<tr>" + "<td>{}</td>" * 9 + "</tr>",
                                (row(turn, c) for turn, claims in turns for c in claims))
        return format_html(
            "<ul>{}</ul><table><thead><tr><th>#</th><th>Claim</th><th>Type</th><th>Verdict</th>"
            "<th>Score</th><th>Relevance</th><th>Confidence</th><th>Evidence</th><th>Cited</th></tr>"
            "</thead><tbody>{}</tbody></table>",
            outcomes, rows,
        )

    @admin.action(description="Verify event log (hash chain, turn seals, head file)",
                  permissions=["view"])
    def verify_event_log(self, request, queryset):
        """Per session: the hash chain, each ended turn's seal recomputed from its stored
        answer, claims and ledger, owner and workspace, and the signed head file
        (``sessions.audit.session_audit``)."""
        for session in queryset.order_by("pk"):
            audit = session_audit(session=session)
            problems = audit.problems
            if not problems:
                self.message_user(request, f"Session {session.pk} “{session}”: event log "
                                  f"{audit.summary()}.", messages.SUCCESS)
                continue
            shown = "; ".join(problems[:MAX_PROBLEMS_SHOWN])
            more = len(problems) - MAX_PROBLEMS_SHOWN
            self.message_user(request, f"Session {session.pk} “{session}”: event log BROKEN — {shown}"
                              + (f"; and {more} more" if more > 0 else ""), messages.ERROR)


@admin.register(Turn)
class TurnAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    workspace_path = "session__workspace"

    list_display = ["__str__", "session", "index", "status", "outcome", "created"]
    list_filter = ["status", "outcome"]
    search_fields = ["question", "answer_markdown"]
    list_select_related = ["session"]
    inlines = [ClaimInline]


@admin.register(Revision)
class RevisionAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    workspace_path = "turn__session__workspace"

    list_display = ["turn", "cycle", "coverage", "created"]
    list_select_related = ["turn"]


@admin.register(SessionEvent)
class SessionEventAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """The event log is append-only: viewable, never editable."""

    workspace_path = "session__workspace"

    list_display = ["session", "seq", "type", "created", "hash"]
    list_filter = ["type"]
    search_fields = ["session__title"]
    list_select_related = ["session"]
    show_full_result_count = False
