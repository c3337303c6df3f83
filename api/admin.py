"""API tokens in the admin: who holds one and until when, never the token or its key.

Staff may revoke (delete) tokens with the delete permission; nobody adds or edits one
here (knox's own admin shows the digest and the key prefix and prints new tokens).
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

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
