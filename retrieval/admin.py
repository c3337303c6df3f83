from django.contrib import admin

from retrieval.models import Chunk, Document


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["title", "workspace", "jurisdiction", "jurisdiction_level", "lane",
                    "source_type", "status", "last_updated", "updated"]
    list_filter = ["status", "jurisdiction_level", "lane", "source_type", "workspace"]
    search_fields = ["title", "citation_label", "source_path", "sha256"]
    readonly_fields = ["sha256", "lane", "mime", "size_bytes", "page_count", "created", "updated"]
    list_select_related = ["workspace"]


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ["chunk_id", "document", "ordinal", "heading", "page_start", "token_count",
                    "jurisdiction", "lane"]
    list_filter = ["lane", "jurisdiction"]
    search_fields = ["chunk_id", "heading", "document__title"]
    list_select_related = ["document"]
    raw_id_fields = ["document"]
    show_full_result_count = False
