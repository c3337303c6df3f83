"""Documents: list with upload, ingestion progress, a document's chunks, delete."""

from __future__ import annotations

from pathlib import PurePath

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from ciq.permissions import Action, capabilities, permission_require
from ciq.selectors import workspace_get_for_user
from ciq.web.forms import UploadForm
from ciq.web.selectors import CHUNKS_PER_PAGE, document_outline
from ciq.web.views.workspaces import workspace_remember
from retrieval.models import Document
from retrieval.selectors import document_get_for_user, document_list
from retrieval.services import document_delete
from retrieval.uploads import documents_upload

# Headings listed before the rest of a long outline folds under "Show all".
OUTLINE_SHOWN = 20


@login_required
@require_http_methods(["GET", "POST"])
def document_list_view(request: HttpRequest, workspace_id: int) -> HttpResponse:
    """GET: the workspace's documents and the upload form. POST: upload files with
    their metadata; ingestion runs in the background. Bad files are listed and the
    form keeps its values."""
    workspace = workspace_get_for_user(user=request.user, workspace_id=workspace_id)
    workspace_remember(request, workspace)
    if request.method == "POST":
        permission_require(user=request.user, workspace=workspace, action=Action.UPLOAD)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            uploaded = documents_upload(workspace=workspace, uploads=form.cleaned_data["files"],
                                        metadata=form.metadata(), per_file=form.per_file(),
                                        user=request.user)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, upload_message(uploaded))
            return redirect("documents", workspace.pk)
    return render(request, "web/documents/list.html", {
        "workspace": workspace, "form": form, "documents": document_list(workspace=workspace),
        "can": capabilities(user=request.user, workspace=workspace),
    }, status=400 if form.errors else 200)


def upload_message(documents: list[Document]) -> str:
    """The flash message after an upload, naming every file as it was uploaded
    ("Uploaded “docks.md”, “flood.pdf”: ingestion runs in the background; …")."""
    names = ", ".join(f"“{PurePath(d.source_path).name or d.title}”" for d in documents)
    return (f"Uploaded {names}: ingestion runs in the background; the list below shows "
            "each file's outcome when it ends.")


@login_required
@require_GET
def document_status(request: HttpRequest, workspace_id: int) -> JsonResponse:
    """Ingestion progress as JSON: ``{"documents": [{"id", "title", "status",
    "status_label", "chunks", "error"}], "pending": n}`` for the documents list's poller."""
    workspace = workspace_get_for_user(user=request.user, workspace_id=workspace_id)
    rows = [
        {"id": d.pk, "title": d.title, "status": d.status, "status_label": d.get_status_display(),
         "chunks": d.chunk_count, "error": d.error}
        for d in document_list(workspace=workspace)
    ]
    return JsonResponse({
        "documents": rows,
        "pending": sum(1 for r in rows if r["status"] == Document.Status.PENDING),
    })


@login_required
@require_GET
def document_detail(request: HttpRequest, document_id: int) -> HttpResponse:
    """A document's metadata, its outline and its chunks (ids, pages, text rendered from
    Markdown), ``CHUNKS_PER_PAGE`` a page: ``?page=n``, or ``?chunk=<id>`` for the page
    holding that chunk (an unknown id or page number gives the nearest valid page)."""
    document = document_get_for_user(user=request.user, document_id=document_id)
    outline = document_outline(document=document)
    wanted = request.GET.get("chunk", "").strip().lower()
    number = outline.page_of.get(wanted) or request.GET.get("page")
    page = Paginator(document.chunks.order_by("ordinal"), CHUNKS_PER_PAGE).get_page(number)
    return render(request, "web/documents/detail.html", {
        "workspace": document.workspace, "document": document,
        "can": capabilities(user=request.user, workspace=document.workspace),
        "page": page, "chunk_count": page.paginator.count,
        "page_range": list(page.paginator.get_elided_page_range(page.number, on_each_side=2,
                                                                 on_ends=1)),
        "outline": outline.entries, "outline_shown": OUTLINE_SHOWN,
        "outline_rest": f"{OUTLINE_SHOWN}:",
    })


@login_required
@require_http_methods(["GET", "POST"])
def document_delete_view(request: HttpRequest, document_id: int) -> HttpResponse:
    """GET: ask for confirmation. POST: delete the document and its chunks. 403 for a
    role that may not delete documents (``ciq.permissions``)."""
    document = document_get_for_user(user=request.user, document_id=document_id)
    workspace = document.workspace
    permission_require(user=request.user, workspace=workspace, action=Action.DELETE_DOCUMENT)
    if request.method == "POST":
        title = document.title
        document_delete(document=document, user=request.user)
        messages.success(request, f"Deleted “{title}”.")
        return redirect("documents", workspace.pk)
    return render(request, "web/documents/confirm_delete.html",
                  {"workspace": workspace, "document": document})
