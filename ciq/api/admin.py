"""API tokens in the admin: who holds one and until when, never the token or its key.

Staff may revoke (delete) tokens with the delete permission; nobody adds or edits one
here (knox's own admin shows the digest and the key prefix and prints new tokens). A
staff user who is no superuser sees only their own tokens.
"""

from django.contrib import admin
from knox.models import AuthToken

if admin.site.is_registered(AuthToken):
    admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class AuthTokenAdmin(admin.ModelAdmin):
    list_display = ["user", "created", "expiry"]
    list_filter = ["created", "expiry"]
    search_fields = ["user__username"]
    fields = ["user", "created", "expiry"]
    readonly_fields = fields
    list_select_related = ["user"]

    def get_queryset(self, request):
        tokens = super().get_queryset(request)
        return tokens if request.user.is_superuser else tokens.filter(user_id=request.user.pk)

    def is_visible(self, request, obj) -> bool:
        return obj is None or request.user.is_superuser or obj.user_id == request.user.pk

    def has_view_permission(self, request, obj=None):
        return self.is_visible(request, obj) and super().has_view_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.is_visible(request, obj) and super().has_delete_permission(request, obj)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
