"""Workspaces and memberships in the admin, and the read-only base of audit admins."""

from django.contrib import admin

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
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ["name", "created"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "workspace", "role", "created"]
    list_filter = ["role", "workspace"]
    search_fields = ["user__username", "workspace__name"]
