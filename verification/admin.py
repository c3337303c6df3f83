from django.contrib import admin

from verification.models import Claim, LedgerEntry


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ["__str__", "turn", "revision", "index", "type"]
    list_filter = ["type"]
    search_fields = ["text"]
    raw_id_fields = ["turn", "revision"]
    show_full_result_count = False


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    list_display = ["claim", "verdict", "score", "confidence", "level", "evidence_chunk_id"]
    list_filter = ["verdict", "level"]
    search_fields = ["claim__text", "snippet", "evidence_chunk_id"]
    raw_id_fields = ["claim", "evidence"]
    list_select_related = ["claim"]
    show_full_result_count = False
