"""Development settings (``make dev``): DEBUG on unless the environment says otherwise,
and the known development key when no SECRET_KEY is set. Never serve users with these."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
