"""Workspaces and memberships in the admin, and the read-only base of audit admins.

A staff user who is no superuser sees only their own workspaces (``ciq.admin_scoping``).
"""

from django.contrib import admin

from ciq.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin
from ciq.models import Membership, Workspace


class ReadOnlyAdminMixin:
    """Audit rows (STYLE.md habit 10): staff with view permission see them; nobody,
    superusers included, adds, changes or deletes them in the admin. Works for
    ``ModelAdmin`` and inlines (whose permission checks also receive ``obj``)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Workspace)
class WorkspaceAdmin(WorkspaceScopedAdmin, admin.ModelAdmin):
    workspace_path = "pk"

    list_display = ["name", "created"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(WorkspaceScopedAdmin, admin.ModelAdmin):
    list_display = ["user", "workspace", "role", "created"]
    list_filter = ["role", WorkspaceListFilter]
    search_fields = ["user__username", "workspace__name"]
