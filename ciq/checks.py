"""System checks: a misconfigured backend is reported by ``manage.py check`` and at start-up,
not halfway through a user's run."""

from django.conf import settings
from django.core import checks


@checks.register()
def role_backends_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """An ``Error`` (ciq.E001) for each role setting (``CIQ_WRITER``, ``CIQ_SKEPTIC``,
    ``CIQ_JUDGE``, ``CIQ_INDEX``) that names no known backend."""
    from ciq.roles import BACKENDS
    from retrieval.index import INDEXES

    known = {**BACKENDS, "index": INDEXES}
    errors = []
    for role, names in known.items():
        setting = f"CIQ_{role.upper()}"
        value = getattr(settings, setting)
        if value not in names:
            errors.append(checks.Error(
                f"{setting}={value!r} names no backend.",
                hint=f"Choose one of: {', '.join(sorted(names))}.", id="ciq.E001",
            ))
    return errors
