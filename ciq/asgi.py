"""ASGI entry point: Django over HTTP and the session websockets (Channels).

Websockets pass the origin check (``ALLOWED_HOSTS``) and the session-cookie login
before reaching a consumer. With DEBUG on, daphne also serves the static files (in
production a web server or CDN serves ``collectstatic``'s output).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ciq.settings.dev")
django_asgi_app = get_asgi_application()  # sets Django up before the consumers import models

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from web.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter({
    "http": ASGIStaticFilesHandler(django_asgi_app) if settings.DEBUG else django_asgi_app,
    "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
})
