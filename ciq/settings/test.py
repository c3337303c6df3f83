"""Test settings: fast hashing, media in a temporary folder, database chosen by pytest-django."""

import tempfile

from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
MEDIA_ROOT = tempfile.mkdtemp(prefix="ciq-test-media-")
