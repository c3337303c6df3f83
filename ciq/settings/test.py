"""Test settings: fast hashing, media in a temporary folder, database chosen by pytest-django."""

import tempfile

from .base import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
MEDIA_ROOT = tempfile.mkdtemp(prefix="ciq-test-media-")
# The audit head file and key live outside the repository's var/ (tests/conftest.py gives
# each test its own head file: session ids repeat from test to test).
_AUDIT_DIR = tempfile.mkdtemp(prefix="ciq-test-audit-")
AUDIT_HMAC_KEY = "test-audit-key"
AUDIT_HMAC_KEY_FILE = f"{_AUDIT_DIR}/hmac_key"
AUDIT_HEADS_FILE = f"{_AUDIT_DIR}/heads.log"

# The suite runs on the embedded lexical default unless a test picks another index (the
# MiniLM tests do); a machine with the extra installed would otherwise embed every ingest.
CIQ_EMBEDDER = env("CIQ_EMBEDDER", default="none")  # noqa: F405
CIQ_INDEX = env("CIQ_INDEX", default="lexical")  # noqa: F405

# Runs execute at once, in the test's thread, when their transaction commits.
TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend",
                     "QUEUES": TASK_QUEUES}}  # noqa: F405
CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The suite makes thousands of API calls as users whose ids repeat from test to test;
# the throttling test lowers the rate itself.
REST_FRAMEWORK = {**REST_FRAMEWORK,  # noqa: F405
                  "DEFAULT_THROTTLE_RATES": {"anon": "100000/hour", "user": "100000/hour"}}
