"""Document input (multipart upload) and output (list, detail with chunks)."""

from django.conf import settings
from rest_framework import serializers

from ciq.api.serializers.workspaces import UserWorkspaceField
from retrieval.extract import SUPPORTED_SUFFIXES
from retrieval.models import Chunk, Document, JurisdictionLevel
from sessions.services import JURISDICTION_RE


class DocumentSerializer(serializers.ModelSerializer):
    """A document: metadata, ingest status (``pending`` → ``ready`` | ``failed`` with
    ``error``) and its chunk count."""

    chunk_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Document
        fields = ["id", "workspace", "title", "status", "error", "jurisdiction",
                  "jurisdiction_level", "lane", "source_type", "citation_label",
                  "last_updated", "mime", "size_bytes", "page_count", "chunk_count",
                  "created", "updated"]
        read_only_fields = fields


class ChunkSerializer(serializers.ModelSerializer):
    """A passage of a document; ``pages`` reads "p. 3", "pp. 3–4" or ""."""

    class Meta:
        model = Chunk
        fields = ["chunk_id", "ordinal", "pages", "page_start", "page_end", "heading",
                  "token_count", "text"]
        read_only_fields = fields


class DocumentDetailSerializer(DocumentSerializer):
    """A document with its chunks in order."""

    chunks = ChunkSerializer(many=True, read_only=True)

    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "chunks"]
        read_only_fields = fields


class DocumentUploadSerializer(serializers.Serializer):
    """Multipart upload: one or more ``files`` into ``workspace`` with shared metadata
    (``title`` only applies to a single file). Types, emptiness and size are checked by
    :func:`retrieval.uploads.documents_upload`."""

    workspace = UserWorkspaceField()
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True), allow_empty=False, max_length=50,
        help_text=(f"One or more files: {', '.join(sorted(SUPPORTED_SUFFIXES))}; each at most "
                   f"INGEST_MAX_FILE_BYTES ({settings.INGEST_MAX_FILE_BYTES:,} bytes)."),
    )
    title = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)
    jurisdiction = serializers.RegexField(
        JURISDICTION_RE, max_length=100, required=False, default="", allow_blank=True,
        help_text="e.g. US, US-OR, US-OR-Rivergrove; default private.",
        error_messages={"invalid": "Malformed jurisdiction code: letters and digits joined by '-'."},
    )
    jurisdiction_level = serializers.ChoiceField(
        choices=JurisdictionLevel.choices, required=False, default="", allow_blank=True)
    source_type = serializers.CharField(max_length=50, required=False, default="", allow_blank=True)
    citation_label = serializers.CharField(max_length=300, required=False, default="", allow_blank=True)
    last_updated = serializers.DateField(required=False, default=None, allow_null=True)
