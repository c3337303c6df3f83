"""Documents: ``GET|POST /api/v1/documents/``, ``GET|DELETE /api/v1/documents/<id>/``."""

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from ciq.api.errors import NON_FIELD_ERRORS
from ciq.api.filters import DocumentFilter
from ciq.api.serializers.documents import (
    DocumentDetailSerializer,
    DocumentSerializer,
    DocumentUploadSerializer,
)
from retrieval.models import Chunk, Document
from retrieval.selectors import document_list_for_user
from retrieval.services import document_delete
from retrieval.uploads import documents_upload


class DocumentListView(generics.ListAPIView):
    """List the documents of the caller's workspaces; upload new ones (multipart)."""

    queryset = Document.objects.none()  # the model, for the schema; rows: get_queryset
    serializer_class = DocumentSerializer
    filterset_class = DocumentFilter
    # documents_upload names bad files without a field: they are the "files" field here.
    service_error_fields = {NON_FIELD_ERRORS: "files"}

    parser_classes = [MultiPartParser]

    def get_queryset(self):
        return document_list_for_user(user=self.request.user)

    @extend_schema(request={"multipart/form-data": DocumentUploadSerializer},
                   responses={201: DocumentSerializer(many=True)})
    def post(self, request):
        """Upload one or more files (``files``) with shared metadata. The documents come
        back ``pending``; the background worker ingests them into ``ready`` or ``failed``.
        400 names every refused file (type, empty, over INGEST_MAX_FILE_BYTES)."""
        form = DocumentUploadSerializer(data=request.data, context={"request": request})
        form.is_valid(raise_exception=True)
        metadata = {k: v for k, v in form.validated_data.items() if k not in ("workspace", "files")}
        documents = documents_upload(workspace=form.validated_data["workspace"],
                                     uploads=form.validated_data["files"], metadata=metadata,
                                     user=request.user)
        return Response(DocumentSerializer(documents, many=True).data, status=status.HTTP_201_CREATED)


class DocumentDetailView(generics.RetrieveDestroyAPIView):
    """One document with its chunks; ``DELETE`` removes it, its chunks and its file."""

    queryset = Document.objects.none()
    serializer_class = DocumentDetailSerializer

    def get_queryset(self):
        return document_list_for_user(user=self.request.user).prefetch_related(
            Prefetch("chunks", queryset=Chunk.objects.order_by("ordinal"))
        )

    def perform_destroy(self, instance):
        document_delete(document=instance, user=self.request.user)
