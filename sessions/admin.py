from django.contrib import admin

from sessions.models import ResearchSession, Revision, SessionEvent, Turn


class TurnInline(admin.StackedInline):
    model = Turn
    extra = 0
    fields = ["index", "question", "status", "answer_markdown", "error"]
    show_change_link = True


@admin.register(ResearchSession)
class ResearchSessionAdmin(admin.ModelAdmin):
    list_display = ["title", "workspace", "user", "mode", "verification_mode", "status", "created"]
    list_filter = ["status", "mode", "verification_mode", "workspace"]
    search_fields = ["title", "turns__question"]
    list_select_related = ["workspace", "user"]
    date_hierarchy = "created"
    inlines = [TurnInline]


@admin.register(Turn)
class TurnAdmin(admin.ModelAdmin):
    list_display = ["__str__", "session", "index", "status", "created"]
    list_filter = ["status"]
    search_fields = ["question", "answer_markdown"]
    raw_id_fields = ["session"]


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    list_display = ["turn", "cycle", "coverage", "created"]
    raw_id_fields = ["turn"]


@admin.register(SessionEvent)
class SessionEventAdmin(admin.ModelAdmin):
    """The event log is append-only: viewable, never editable."""

    list_display = ["session", "seq", "type", "created", "hash"]
    list_filter = ["type"]
    search_fields = ["session__title"]
    list_select_related = ["session"]
    show_full_result_count = False

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
