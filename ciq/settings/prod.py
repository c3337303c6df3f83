"""Production settings: the default of ``manage.py``, ``asgi.py``, ``wsgi.py`` and the
Procfile. The same code, configured only through the environment.

``SECRET_KEY`` comes from the environment or, when absent, from ``SECRET_KEY_FILE``
(default ``var/secret_key``, gitignored), generated on first use with mode 0600, so a
fresh install never runs on a published key. ``HTTPS`` (default true) turns on secure
cookies, the HTTPS redirect and HSTS; ``make run`` sets it false to serve plain HTTP on
127.0.0.1 only.
"""

from pathlib import Path

from django.core.management.utils import get_random_secret_key

from ciq.keyfile import key_file_read_or_create

from .base import *  # noqa: F403
from .base import VAR_DIR, env


def secret_key_from_file(path: Path) -> str:
    """The key stored in ``path``, created (0600, random, 50 characters) if missing."""
    return key_file_read_or_create(path, get_random_secret_key)


SECRET_KEY = env("SECRET_KEY", default="") or secret_key_from_file(
    Path(env("SECRET_KEY_FILE", default=str(VAR_DIR / "secret_key"))))
DEBUG = False

HTTPS = env.bool("HTTPS", default=True)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=HTTPS)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=HTTPS)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=HTTPS)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=HTTPS)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=HTTPS)
# Behind a TLS-terminating proxy that sets X-Forwarded-Proto (and strips it from clients).
if env.bool("BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
