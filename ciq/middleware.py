"""Response policies for every page, API answer and download.

- :func:`no_store`: ``Cache-Control: no-store`` (and Django's other never-cache headers)
  on everything Django answers: firm documents, answers and exports must not stay in a
  browser's or a proxy's cache. Static files are served before this middleware.
- :func:`api_json_errors`: under ``/api/`` an error is always JSON, never Django's HTML
  404/500 page or its DEBUG traceback page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import add_never_cache_headers

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"


def no_store(get_response: Callable[[HttpRequest], HttpResponse]):
    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        add_never_cache_headers(response)
        return response

    return middleware


def api_json_errors(get_response: Callable[[HttpRequest], HttpResponse]):
    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if (request.path.startswith(API_PREFIX) and response.status_code >= 400
                and not response.get("Content-Type", "").startswith("application/json")):
            try:
                phrase = HTTPStatus(response.status_code).phrase
            except ValueError:
                phrase = "Error"
            # Django has already logged the failure (and its traceback for a 500).
            return JsonResponse({"detail": f"{phrase}."}, status=response.status_code,
                                headers={k: v for k, v in response.headers.items()
                                         if k in ("Allow", "Retry-After", "WWW-Authenticate")})
        return response

    return middleware
