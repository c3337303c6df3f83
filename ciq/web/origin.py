"""The websocket Origin check: only pages of this very site may open a socket.

Channels' ``AllowedHostsOriginValidator`` compares the Origin's host name with
``ALLOWED_HOSTS`` and ignores the port, so a page served by any other program on
``localhost`` (another port is another origin) could open a socket with the user's
cookie. Here the Origin must name a host in ``ALLOWED_HOSTS`` *and* the scheme's host
and port the request was sent to (its ``Host`` header, which the browser sets), or be
listed in ``WS_ALLOWED_ORIGINS`` (for a proxy that rewrites ``Host``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_allowed(origin: str, host: str) -> bool:
    """True when ``origin`` (``scheme://host[:port]``) is this site as reached at ``host``
    (the ``Host`` header: ``name[:port]``)."""
    if origin in settings.WS_ALLOWED_ORIGINS:
        return True
    try:
        parts = urlsplit(origin)
        origin_port = parts.port or DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return False
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or origin_port is None:
        return False
    domain, port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    host_port = int(port) if port else DEFAULT_PORTS[parts.scheme]
    origin_host = parts.hostname.lower()
    if ":" in origin_host:  # urlsplit drops the brackets of an IPv6 literal
        origin_host = f"[{origin_host}]"
    return origin_host == domain and origin_port == host_port


class SameOriginValidator:
    """ASGI middleware: refuse (HTTP 403 at the handshake) a websocket whose Origin is not
    this site (see the module docstring)."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket":
            headers = dict(scope.get("headers", []))
            origin = headers.get(b"origin", b"").decode("latin-1")
            host = headers.get(b"host", b"").decode("latin-1")
            if not origin_allowed(origin, host):
                return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
