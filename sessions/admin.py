"""Research sessions in the admin, for audit: every row read-only, a review page that
shows a session as its user saw it (issue 14, item 3), the evidence ledger with links to
the cited chunks and documents, a hash-chain check of the event log and exports of the
selected sessions."""

from __future__ import annotations

import io
import zipfile

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import FloatField, OuterRef, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from django.utils.timezone import localtime

from ciq.admin import ReadOnlyAdminMixin
from ciq.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from ciq.web.selectors import session_events_by_turn
from ciq.web.turns import turn_view
from exports.services import FORMATS, session_export
from retrieval.admin import chunk_link
from retrieval.models import Chunk
from sessions.audit import session_audit
from sessions.models import Outcome, ResearchSession, Revision, SessionEvent, Turn
from sessions.selectors import turn_ledger
from verification.admin import ClaimInline

MAX_PROBLEMS_SHOWN = 10
# Characters of a session's title in the list (two lines of its column at 1,280 px).
TITLE_CHARS = 90


def latest_turn_metric(key: str) -> Subquery:
    """A session annotation: ``metrics[key]`` of its latest turn, as a float (or null)."""
    turns = Turn.objects.filter(session=OuterRef("pk")).order_by("-index")
    return Subquery(turns.values(value=Cast(KT(f"metrics__{key}"), FloatField()))[:1])


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


class TurnInline(ReadOnlyAdminMixin, admin.StackedInline):
    """The turns' raw rows (markers, JSON), folded: the review page is the main view."""

    model = Turn
    extra = 0
    classes = ["collapse"]
    verbose_name_plural = "turns (raw rows)"
    fields = ["index", "status", "outcome", "question", "answer_markdown", "error", "answerability",
              "retrieval_confidence", "claim_confidence", "metrics", "log_seq", "log_hash", "created",
              "completed"]
    readonly_fields = fields
    show_change_link = True


class EventInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = SessionEvent
    extra = 0
    classes = ["collapse"]
    verbose_name_plural = "event log (raw)"
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


def review_answer_html(turn: dict, *, session_id: int) -> SafeString:
    """``turn["answer_html"]`` (the workbench's rendering, ``ciq.web.turns.turn_view``)
    with each citation [n] linked to source n of the review page instead of the
    workbench's chunk page, which answers 404 to an auditor who is no member."""
    html = str(turn["answer_html"])
    for citation in turn["citations"]:
        workbench = reverse("chunk", args=[session_id, citation["chunk_id"]])
        html = html.replace(f'href="{workbench}"',
                            f'href="#turn-{turn["turn"]}-source-{citation["number"]}"')
    return mark_safe(html)  # noqa: S308 — answer_html escaped it; only hrefs changed


def session_review(*, session: ResearchSession) -> dict:
    """What the review page shows of ``session``, as its user saw it.

    Returns ``{"audit": AuditResult, "last_seq": int, "turns": [dict]}``; each turn is
    ``ciq.web.turns.turn_view`` (the data of the workbench session page) plus
    ``review_html`` (:func:`review_answer_html`), per citation ``admin_url`` (the
    chunk's admin page; ``None`` once its document is deleted or replaced) and per
    ledger row ``cited_numbers`` (the citation numbers of the chunks the claim cites).
    Queries: the audit's, one for the events, a few per turn, one for the chunks."""
    audit = session_audit(session=session)
    events, last_seq = session_events_by_turn(session=session)
    turns = [turn_view(turn=t, events=events.get(t.index, []))
             for t in session.turns.select_related("asked_by", "session__workspace").order_by("index")]
    cited = {c["chunk_id"] for t in turns for c in t["citations"]}
    chunk_pks = dict(Chunk.objects.filter(document__workspace=session.workspace_id, chunk_id__in=cited)
                     .values_list("chunk_id", "pk"))
    for turn in turns:
        turn["review_html"] = review_answer_html(turn, session_id=session.pk)
        numbers = {c["chunk_id"]: c["number"] for c in turn["citations"]}
        for citation in turn["citations"]:
            pk = chunk_pks.get(citation["chunk_id"])
            citation["admin_url"] = reverse("admin:retrieval_chunk_change", args=[pk]) if pk else None
        for row in turn["ledger"]:
            row["cited_numbers"] = sorted({numbers[c] for c in row["cited_chunk_ids"] if c in numbers})
    return {"audit": audit, "last_seq": last_seq, "turns": turns}


@admin.register(ResearchSession)
class ResearchSessionAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Sessions for audit: coverage and contradiction rate of the latest turn in the
    list, the review page (the session as its user saw it), the raw turns, ledger and
    event log on the change page, a chain check action."""

    # Eight columns beside the admin's two sidebars fit 1,280 px (issue 14): mode and
    # verification mode share one, the outcome column says the status while no outcome,
    # long headers have a soft hyphen (\u00ad) to break at.
    list_display = ["title_link", "user", "workspace_name", "modes", "outcome", "coverage",
                    "contradiction_rate", "created_at"]
    # The title links to the review page (the change page is one click further, from
    # there): an auditor reads the session, not its raw rows.
    list_display_links = None
    list_filter = ["status", LatestOutcomeFilter, "mode", "verification_mode", WorkspaceListFilter,
                   ("user", admin.RelatedOnlyFieldListFilter), "created"]
    search_fields = ["title", "turns__question", "turns__answer_markdown"]
    list_select_related = ["workspace", "user"]
    date_hierarchy = "created"
    readonly_fields = ["event_log", "ledger"]
    fieldsets = [
        (None, {"fields": ["workspace", "user", "title", "mode", "verification_mode", "jurisdictions",
                           "status", "created", "completed", "event_log"]}),
        ("Evidence ledger (raw)", {"classes": ["collapse"], "fields": ["ledger"]}),
    ]
    inlines = [TurnInline, EventInline]
    change_form_template = "admin/sessions/researchsession/change_form.html"
    review_template = "admin/sessions/researchsession/review.html"

    class Media:
        css = {"all": ["ciq/admin_review.css"]}

    def get_urls(self):
        # Before the admin's own: its "<object_id>/" catch-all would take ".../review/".
        review = path("<path:object_id>/review/", self.admin_site.admin_view(self.review_view),
                      name=f"{self.opts.app_label}_{self.opts.model_name}_review")
        return [review, *super().get_urls()]

    def review_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The session as its user saw it (:func:`session_review`), read-only. Another
        firm's session "does not exist" (404, ``WorkspaceScopedAdmin.get_queryset``);
        staff without the view permission get 403, as on the change page."""
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])
        session = self.get_object(request, unquote(object_id))
        if session is None:
            raise Http404("No such session.")
        if not self.has_view_permission(request, session):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts, "original": session, "session": session,
            "title": f"Review: {Truncator(session.title).chars(TITLE_CHARS)}",
            "events_url": reverse("admin:ciq_sessions_sessionevent_changelist")
            + f"?session__id__exact={session.pk}",
            **session_review(session=session),
        }
        return TemplateResponse(request, self.review_template, context)

    @admin.display(description="Title", ordering="title")
    def title_link(self, session):
        """The title cut to two lines' worth, linked to the review page (the whole title
        in the link's tooltip)."""
        url = reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_review", args=[session.pk])
        return format_html('<a href="{}" class="ciq-title" title="{}">{}</a>', url, session.title,
                           Truncator(session.title).chars(TITLE_CHARS))

    @admin.display(description="Created", ordering="created")
    def created_at(self, session):
        # The date over the time: a narrow column that is never cut.
        created = localtime(session.created)
        return format_html('<span class="ciq-nowrap">{}</span> <span class="ciq-nowrap">{}</span>',
                           created.strftime("%Y-%m-%d"), created.strftime("%H:%M"))
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
        """The latest turn's outcome; the session's status while it has none (a turn
        pending, running, failed or cancelled)."""
        return Outcome(session.outcome).label if session.outcome else session.get_status_display()

    @admin.display(description="Work\u00adspace", ordering="workspace__name")
    def workspace_name(self, session):
        return session.workspace.name

    @admin.display(description="Mode", ordering="mode")
    def modes(self, session):
        return f"{session.get_mode_display()}, {session.get_verification_mode_display().lower()}"

    @admin.display(description="Cover\u00adage", ordering="coverage")
    def coverage(self, session):
        return percent(session.coverage)

    @admin.display(description="Contra\u00addictions", ordering="contradiction_rate")
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
