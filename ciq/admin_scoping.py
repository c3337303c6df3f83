"""The admin per firm (issue 11): a staff user who is no superuser sees only the rows of
the workspaces they are a member of (any role); a superuser sees every workspace.

:class:`WorkspaceScopedAdmin` goes first in the bases of every ``ModelAdmin`` of a
model that belongs to a workspace, naming the path from the model to it::

    @admin.register(Chunk)
    class ChunkAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
        workspace_path = "document__workspace"

The admin reads an object through ``get_queryset`` (change, history and delete pages,
actions, autocompletes), so a row of another firm "does not exist" there, as in the
pages and the API (STYLE.md habit 3).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from ciq.models import Membership, Workspace


def admin_sees_everything(request: HttpRequest) -> bool:
    """A superuser sees every workspace in the admin."""
    return bool(getattr(request.user, "is_superuser", False))


def admin_workspace_ids(request: HttpRequest) -> frozenset[int]:
    """The ids of the workspaces ``request.user`` is a member of, read once per request
    (the permission checks of one admin page ask several times)."""
    cached = getattr(request, "_ciq_admin_workspace_ids", None)
    if cached is None:
        cached = frozenset(Membership.objects.filter(user_id=request.user.pk)
                           .values_list("workspace_id", flat=True))
        request._ciq_admin_workspace_ids = cached  # type: ignore[attr-defined]
    return cached


def admin_workspaces(request: HttpRequest) -> QuerySet[Workspace]:
    """The workspaces ``request.user`` may see in the admin: all for a superuser."""
    workspaces = Workspace.objects.order_by("name")
    if admin_sees_everything(request):
        return workspaces
    return workspaces.filter(membership__user_id=request.user.pk)


class WorkspaceListFilter(admin.SimpleListFilter):
    """Rows by workspace, offering only the workspaces the user may see (the default
    filter of a ``workspace`` foreign key lists every firm by name)."""

    title = "workspace"
    parameter_name = "workspace"

    def __init__(self, request, params, model, model_admin):
        self.workspace_path = model_admin.workspace_path
        super().__init__(request, params, model, model_admin)

    def lookups(self, request, model_admin):
        return [(str(w.pk), w.name) for w in admin_workspaces(request)]

    def queryset(self, request, queryset):
        if self.value() is None:
            return queryset
        return queryset.filter(**{self.workspace_path: self.value()})


class WorkspaceScopedAdmin:
    """A ``ModelAdmin`` mixin that keeps a staff user who is no superuser to the rows of
    their workspaces: the list, the object pages and permissions, the choices of foreign
    keys to other scoped models; and that never lets an existing row's link to its
    workspace be edited (a document moved to another firm would take its text there).

    ``workspace_path``: the lookup from the model to its workspace (``"workspace"``,
    ``"session__workspace"``; ``"pk"`` for ``Workspace`` itself).
    """

    workspace_path: str = "workspace"

    def scope(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        """``queryset`` (of this admin's model) narrowed to the user's workspaces."""
        if admin_sees_everything(request):
            return queryset
        members = Membership.objects.filter(user_id=request.user.pk).values("workspace_id")
        return queryset.filter(**{f"{self.workspace_path}__in": members})

    def workspace_id_of(self, obj: Model) -> int | None:
        """The id of ``obj``'s workspace, following ``workspace_path`` (None if a link
        on the way is empty)."""
        *parents, last = self.workspace_path.split("__")
        for name in parents:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj.pk if last == "pk" else getattr(obj, f"{last}_id")

    def in_scope(self, request: HttpRequest, obj: Model | None) -> bool:
        return (obj is None or admin_sees_everything(request)
                or self.workspace_id_of(obj) in admin_workspace_ids(request))

    def get_queryset(self, request):
        return self.scope(request, super().get_queryset(request))

    def has_view_permission(self, request, obj=None):
        return self.in_scope(request, obj) and super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None):
        return self.in_scope(request, obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.in_scope(request, obj) and super().has_delete_permission(request, obj)

    @property
    def workspace_link(self) -> str | None:
        """The field of the model that ties a row to its workspace (``None`` for
        ``Workspace`` itself): read-only once the row exists, for superusers too."""
        link = self.workspace_path.split("__")[0]
        return None if link == "pk" else link

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and self.workspace_link and self.workspace_link not in fields:
            fields.append(self.workspace_link)
        return fields

    def get_fields(self, request, obj=None):
        # Made read-only, the link would move after the other read-only fields; it is
        # what an auditor reads first, so it goes first (declared ``fields`` are kept).
        fields = list(super().get_fields(request, obj))
        if obj is not None and not self.fields and self.workspace_link in fields:
            fields.remove(self.workspace_link)
            fields.insert(0, self.workspace_link)
        return fields

    def _scoped_choices(self, db_field, request, using: str | None) -> QuerySet | None:
        # A foreign key to a model another scoped admin keeps (Workspace, Document,
        # ResearchSession...) offers, and accepts, only rows of the user's workspaces.
        related = self.admin_site._registry.get(db_field.remote_field.model)
        if not isinstance(related, WorkspaceScopedAdmin):
            return None
        queryset = self.get_field_queryset(using, db_field, request)
        if queryset is None:
            queryset = db_field.remote_field.model._default_manager.using(using).all()
        return related.scope(request, queryset)

    def formfield_for_foreignkey(self, db_field, request, **kwargs: Any):
        if "queryset" not in kwargs:
            queryset = self._scoped_choices(db_field, request, kwargs.get("using"))
            if queryset is not None:
                kwargs["queryset"] = queryset
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_manytomany(self, db_field, request, **kwargs: Any):
        if "queryset" not in kwargs:
            queryset = self._scoped_choices(db_field, request, kwargs.get("using"))
            if queryset is not None:
                kwargs["queryset"] = queryset
        return super().formfield_for_manytomany(db_field, request, **kwargs)
