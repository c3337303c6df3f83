"""Export records in the admin: an audit trail, read-only for everyone (STYLE.md §10)."""

from django.contrib import admin

from ciq.admin import ReadOnlyAdminMixin
from ciq.admin_scoping import WorkspaceScopedAdmin
from exports.models import ExportRecord


@admin.register(ExportRecord)
class ExportRecordAdmin(WorkspaceScopedAdmin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Every export (format, sha256, size, user, log head): view only."""

    workspace_path = "session__workspace"

    list_display = ("created", "session", "format", "user", "size_bytes", "sha256")
    list_filter = ("format",)
    search_fields = ("sha256", "session__title", "user__username")
    list_select_related = ("session", "user")
    date_hierarchy = "created"
    show_full_result_count = False
