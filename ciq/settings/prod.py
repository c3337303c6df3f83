"""Production settings: the same code, configured only through the environment."""

from .base import *  # noqa: F403
from .base import env

SECRET_KEY = env("SECRET_KEY")  # required: no default in production
DEBUG = False
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
