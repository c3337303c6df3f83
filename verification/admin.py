"""Claims and ledger entries in the admin: audit rows, read-only for everyone, with
links to the evidence chunk and its document."""

from django.contrib import admin
from django.utils.html import format_html

from ciq.admin import ReadOnlyAdminMixin
from ciq.admin_scoping import WorkspaceScopedAdmin
from retrieval.admin import chunk_link
from verification.models import Claim, LedgerEntry


def evidence_link(entry: LedgerEntry | None) -> str:
    """The evidence chunk linked with its document, or its bare id once it is gone."""
    if entry is None or not entry.evidence_chunk_id:
        return "—"
    if entry.evidence is None:
        return format_html("<code>{}</code> (gone)", entry.evidence_chunk_id)
    return chunk_link(entry.evidence)


class ClaimInline(ReadOnlyAdminMixin, admin.TabularInline):
    """A turn's claims (every revision) with the Judge's verdict on each."""

    model = Claim
    extra = 0
    fields = ["cycle", "index", "text", "type", "verdict", "score", "level", "evidence"]
    readonly_fields = fields
    show_change_link = True

    def get_queryset(self, request):
        return super().get_queryset(request).select_related(
            "revision", "ledger", "ledger__evidence__document").order_by("revision__cycle", "index")

    @admin.display(description="Cycle")
    def cycle(self, claim):
        return claim.revision.cycle if claim.revision else "—"

    @admin.display(description="Verdict")
    def verdict(self, claim):
        return getattr(getattr(claim, "ledger", None), "verdict", "—")

    @admin.display(description="Score")
    def score(self, claim):
        ledger = getattr(claim, "ledger", None)
        return f"{ledger.score:.2f}" if ledger else "—"

    @admin.display(description="Confidence")
    def level(self, claim):
        ledger = getattr(claim, "ledger", None)
        return f"{ledger.confidence:.2f} {ledger.level}" if ledger else "—"

    @admin.display(description="Evidence")
    def evidence(self, claim):
        return evidence_link(getattr(claim, "ledger", None))


@admin.register(Claim)
class ClaimAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    workspace_path = "turn__session__workspace"

    list_display = ["__str__", "turn", "revision", "index", "type", "verdict"]
    list_filter = ["type", "ledger__verdict"]
    search_fields = ["text"]
    list_select_related = ["turn", "revision", "ledger"]
    show_full_result_count = False

    @admin.display(description="Verdict", ordering="ledger__verdict")
    def verdict(self, claim):
        return getattr(getattr(claim, "ledger", None), "verdict", "—")


@admin.register(LedgerEntry)
class LedgerEntryAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    workspace_path = "claim__turn__session__workspace"

    list_display = ["claim", "verdict", "score", "confidence", "level", "evidence_chunk_id"]
    list_filter = ["verdict", "level"]
    search_fields = ["claim__text", "snippet", "evidence_chunk_id"]
    list_select_related = ["claim"]
    readonly_fields = ["evidence_link"]
    show_full_result_count = False

    @admin.display(description="Evidence")
    def evidence_link(self, entry):
        return evidence_link(entry)
