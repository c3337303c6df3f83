"""The backend of each pipeline role, picked in settings (DESIGN.md §1).

A setting names an embedded backend (``CIQ_WRITER=extractive``) or a model
(``CIQ_WRITER=anthropic:<model>``, ``CIQ_JUDGE=openai:<model>``): the model-backed
backends have the same interface, so the orchestrator never changes when one is added.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from ciq.llm import chat_client, spec_parse

BACKENDS: dict[str, dict[str, str]] = {
    "writer": {"extractive": "sessions.writer.ExtractiveWriter"},
    "skeptic": {"rules": "verification.skeptic.RuleSkeptic"},
    "judge": {"rules": "verification.judge.RuleJudge"},
}
# Built with a provider client for "<provider>:<model>" settings (ciq/llm/).
MODEL_BACKENDS: dict[str, str] = {
    "writer": "sessions.model_writer.ModelWriter",
    "skeptic": "verification.model_skeptic.ModelSkeptic",
    "judge": "verification.model_judge.ModelJudge",
}


def role_backend(role: str):
    """A new backend instance for ``role`` ("writer", "skeptic" or "judge"), one per turn:
    a model-backed one counts its turn's calls and tokens (``backend.meter``).

    Raises ``ImproperlyConfigured`` naming the setting when the name is unknown, the
    model spec malformed or the provider's key missing.
    """
    setting = f"CIQ_{role.upper()}"
    name = getattr(settings, setting)
    if ":" in name:
        try:
            spec = spec_parse(name)
            return import_string(MODEL_BACKENDS[role])(chat_client(spec))
        except ImproperlyConfigured as exc:
            raise ImproperlyConfigured(f"{setting}={name!r}: {exc}") from None
    try:
        path = BACKENDS[role][name]
    except KeyError:
        raise ImproperlyConfigured(
            f"{setting}={name!r}: choose one of {sorted(BACKENDS.get(role, {}))} "
            "or <provider>:<model>."
        ) from None
    return import_string(path)()
