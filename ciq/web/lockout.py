"""The answer to a login refused by django-axes (too many failures for this username
from this address): 429 with a page for the web and admin logins, JSON for the API."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render


def login_locked_out(request: HttpRequest, original_response: HttpResponse | None = None,
                     credentials: dict | None = None) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the refusal names the wait, never whether the password
    was right."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = (f"Too many failed logins for this user from this address: try again in "
               f"{minutes} minutes.")
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=429, headers={
            "Retry-After": str(int(settings.AXES_COOLOFF_TIME.total_seconds()))})
    return render(request, "registration/locked_out.html", {"message": message}, status=429)
