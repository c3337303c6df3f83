"""Document and chunk reads, scoped to the user's workspaces (STYLE.md habit 3).

"Not yours" and "does not exist" look the same: ``Http404``.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet
from django.shortcuts import get_object_or_404

from ciq.models import Workspace
from ciq.selectors import workspace_list_for_user
from retrieval.jurisdiction import jurisdiction_ancestors
from retrieval.models import Chunk, Document


def document_list_for_user(*, user: AbstractBaseUser) -> QuerySet[Document]:
    """Documents of every workspace ``user`` belongs to, by title, with ``workspace``
    joined and ``chunk_count`` annotated."""
    return (
        Document.objects.filter(workspace__in=workspace_list_for_user(user=user))
        .select_related("workspace")
        .annotate(chunk_count=Count("chunks"))
        .order_by("title", "pk")
    )


def document_get_for_user(*, user: AbstractBaseUser, document_id: int) -> Document:
    """The document ``document_id`` if ``user`` is a member of its workspace, else ``Http404``."""
    return get_object_or_404(document_list_for_user(user=user), pk=document_id)


def document_list(*, workspace: Workspace) -> QuerySet[Document]:
    """The workspace's documents by title, each with ``chunk_count``."""
    return (
        Document.objects.filter(workspace=workspace)
        .annotate(chunk_count=Count("chunks"))
        .order_by("title", "pk")
    )


def chunk_get(*, workspace: Workspace, chunk_id: str) -> Chunk:
    """The chunk ``chunk_id`` (12 hex) of a document in ``workspace``, else ``Http404``.
    Chunk ids are unique within a workspace (the ingest refuses a second copy of the
    same bytes)."""
    return get_object_or_404(
        Chunk.objects.select_related("document"),
        document__workspace=workspace, chunk_id=chunk_id.lower(),
    )


def jurisdictions_known(*, workspace: Workspace) -> set[str]:
    """Target codes the workspace can answer for: its documents' codes and every code
    above them (``US-OR`` and ``US`` when ``US-OR-Rivergrove`` documents exist)."""
    present = set(
        Document.objects.filter(workspace=workspace).values_list("jurisdiction", flat=True)
    )
    return present | {a for code in present for a in jurisdiction_ancestors(code)}
