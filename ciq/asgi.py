"""ASGI entry point (websockets are added with Channels in the web workbench issue)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ciq.settings.dev")
application = get_asgi_application()
