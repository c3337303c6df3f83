"""Workspaces and memberships in the admin, and the read-only base of audit admins.

A staff user who is no superuser sees only their own workspaces (``ciq.admin_scoping``).
"""

from django.contrib import admin

from ciq.admin_scoping import WorkspaceListFilter, WorkspaceScopedAdmin, admin_sees_everything
from ciq.models import AuditEvent, Membership, Workspace
from ciq.services import membership_add, membership_remove, workspace_owner_make


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


def _membership_save(request, membership: Membership) -> None:
    """Save an admin-edited membership through the services (role rules, audit events);
    a row whose user was changed removes the old member and adds the new one."""
    if membership.pk:
        old = Membership.objects.select_related("user", "workspace").get(pk=membership.pk)
        if old.user_id != membership.user_id:
            membership_remove(membership=old, actor=request.user)
    membership_add(user=membership.user, workspace=membership.workspace, role=membership.role,
                   actor=request.user)


@admin.register(Workspace)
class WorkspaceAdmin(WorkspaceScopedAdmin, admin.ModelAdmin):
    workspace_path = "pk"

    list_display = ["name", "created"]
    search_fields = ["name"]
    inlines = [MembershipInline]

    def save_model(self, request, obj, form, change):
        """A staff user who is no superuser and adds a workspace becomes its owner, so
        it stays in their admin and they may add its members (the inline rows, saved
        next); a superuser sees every workspace and is made nobody's member."""
        super().save_model(request, obj, form, change)
        if not change and not admin_sees_everything(request):
            workspace_owner_make(workspace=obj, creator=request.user)
            request._ciq_admin_workspace_ids = None  # read again, with the new workspace

    def save_formset(self, request, form, formset, change):
        """Memberships edited inline go through ``ciq.services`` (audit events, roles)."""
        if formset.model is not Membership:
            return super().save_formset(request, form, formset, change)
        instances = formset.save(commit=False)
        for membership in formset.deleted_objects:
            membership_remove(membership=membership, actor=request.user)
        for membership in instances:
            _membership_save(request, membership)


@admin.register(Membership)
class MembershipAdmin(WorkspaceScopedAdmin, admin.ModelAdmin):
    list_display = ["user", "workspace", "role", "created"]
    list_filter = ["role", WorkspaceListFilter]
    search_fields = ["user__username", "workspace__name"]

    def save_model(self, request, obj, form, change):
        """Through ``ciq.services.membership_add``: role rules and an audit event."""
        _membership_save(request, obj)

    def delete_model(self, request, obj):
        membership_remove(membership=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        for membership in queryset.select_related("user", "workspace"):
            membership_remove(membership=membership, actor=request.user)


@admin.register(AuditEvent)
class AuditEventAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Document deletions and membership changes (read-only)."""

    list_display = ["created", "workspace_name", "actor_name", "action", "target"]
    list_filter = ["action", WorkspaceListFilter]
    search_fields = ["target", "actor_name", "workspace_name"]
    readonly_fields = ["created", "workspace", "workspace_name", "actor", "actor_name", "action",
                       "target", "detail"]
