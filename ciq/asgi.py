"""ASGI entry point: Django over HTTP and the session websockets (Channels).

Websockets pass the origin check (this site only, port included: ``web.origin``) and the session-cookie login
before reaching a consumer. With ``SERVE_STATIC`` (the default) daphne also serves the
static files; a deployment with a web server or CDN in front sets it false.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ciq.settings.prod")  # make dev: ciq.settings.dev
django_asgi_app = get_asgi_application()  # sets Django up before the consumers import models

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from ciq.web.origin import SameOriginValidator  # noqa: E402
from ciq.web.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter({
    "http": ASGIStaticFilesHandler(django_asgi_app) if settings.SERVE_STATIC else django_asgi_app,
    "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
})
