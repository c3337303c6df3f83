"""Export records in the admin: an audit trail, read-only for everyone (STYLE.md §10)."""

from django.contrib import admin

from exports.models import ExportRecord


@admin.register(ExportRecord)
class ExportRecordAdmin(admin.ModelAdmin):
    list_display = ("created", "session", "format", "user", "size_bytes", "sha256")
    list_filter = ("format",)
    search_fields = ("sha256", "session__title", "user__username")
    list_select_related = ("session", "user")
    date_hierarchy = "created"
    show_full_result_count = False
    readonly_fields = [f.name for f in ExportRecord._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
