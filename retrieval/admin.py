"""Documents and chunks in the admin; chunks are what ledgers cite, so they are read-only
(ingestion is their only writer)."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from ciq.admin import ReadOnlyAdminMixin
from ciq.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from retrieval.models import Chunk, ChunkVector, Document
from retrieval.services import document_delete


def chunk_link(chunk: Chunk) -> str:
    """HTML: the chunk id linked to its admin page, then its document's title linked to
    the document's admin page (the chunk must have its document loaded)."""
    return format_html(
        '<a href="{}"><code>{}</code></a> in <a href="{}">{}</a>',
        reverse("admin:retrieval_chunk_change", args=[chunk.pk]), chunk.chunk_id,
        reverse("admin:retrieval_document_change", args=[chunk.document_id]), chunk.document.title,
    )


@admin.register(Document)
class DocumentAdmin(WorkspaceScopedAdmin, admin.ModelAdmin):
    """Documents of the user's workspaces; a document's workspace is fixed once it
    exists (``WorkspaceScopedAdmin.get_readonly_fields``)."""

    list_display = ["title", "workspace", "jurisdiction", "jurisdiction_level", "lane",
                    "source_type", "status", "last_updated", "updated"]
    list_filter = ["status", "jurisdiction_level", "lane", "source_type", WorkspaceListFilter]
    search_fields = ["title", "citation_label", "source_path", "sha256"]
    readonly_fields = ["sha256", "lane", "mime", "size_bytes", "page_count", "created", "updated",
                       "chunks_link"]
    list_select_related = ["workspace"]

    def get_deleted_objects(self, objs, request):
        """A document's chunks and vectors go with it, although their admins are
        read-only (nobody deletes a chunk alone)."""
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request, obj):
        """Through ``retrieval.services.document_delete``: the role rule, the audit event,
        the stored file and the lexical index."""
        document_delete(document=obj, user=request.user)

    def delete_queryset(self, request, queryset):
        for document in queryset:
            document_delete(document=document, user=request.user)

    @admin.display(description="Chunks")
    def chunks_link(self, document):
        url = reverse("admin:retrieval_chunk_changelist") + f"?document__id__exact={document.pk}"
        return format_html('<a href="{}">{} chunks</a>', url, document.chunks.count())


@admin.register(Chunk)
class ChunkAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    workspace_path = "document__workspace"

    list_display = ["chunk_id", "document", "ordinal", "heading", "page_start", "token_count",
                    "jurisdiction", "lane"]
    list_filter = ["lane", "jurisdiction"]
    search_fields = ["chunk_id", "heading", "document__title"]
    list_select_related = ["document"]
    readonly_fields = ["document_link"]
    show_full_result_count = False

    @admin.display(description="Document")
    def document_link(self, chunk):
        return chunk_link(chunk)


@admin.register(ChunkVector)
class ChunkVectorAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Stored embeddings: which chunks have a vector, from which model (read-only)."""

    list_display = ["chunk", "workspace", "model", "dims"]
    list_filter = ["model", WorkspaceListFilter]
    list_select_related = ["chunk", "workspace"]
    exclude = ["vector"]
    show_full_result_count = False
