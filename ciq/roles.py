"""The backend of each pipeline role, picked in settings (DESIGN.md §1).

A setting names a backend (``CIQ_WRITER=extractive``); model-backed backends register
here under their provider prefix (``anthropic:<model>``) with the same interface, so the
orchestrator never changes when one is added.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

BACKENDS: dict[str, dict[str, str]] = {
    "writer": {"extractive": "sessions.writer.ExtractiveWriter"},
    "skeptic": {"rules": "verification.skeptic.RuleSkeptic"},
    "judge": {"rules": "verification.judge.RuleJudge"},
}


@cache
def _backend(role: str, name: str):
    try:
        path = BACKENDS[role][name]
    except KeyError:
        raise ImproperlyConfigured(
            f"CIQ_{role.upper()}={name!r}: choose one of {sorted(BACKENDS.get(role, {}))}."
        ) from None
    return import_string(path)()


def role_backend(role: str):
    """The configured backend instance for ``role`` ("writer", "skeptic" or "judge").

    Raises ``ImproperlyConfigured`` naming the setting when the name is unknown.
    """
    return _backend(role, getattr(settings, f"CIQ_{role.upper()}"))
