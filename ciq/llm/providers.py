"""Provider specs (``anthropic:<model>``, ``openai:<model>``) and the clients built for them.

Keys come only from the environment (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY`` read into
settings); ``OPENAI_BASE_URL`` points the OpenAI client at any OpenAI-compatible server
(a firm's vLLM, Ollama or llama.cpp), which may need no key. Timeouts and retries are
the SDKs' own (``LLM_TIMEOUT_S``, ``LLM_MAX_RETRIES``: exponential backoff, honouring
``retry-after`` on 429 and retrying 5xx).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from ciq.llm.base import ChatClient

PROVIDERS = ("anthropic", "openai")


@dataclass(frozen=True)
class ProviderSpec:
    """A provider and a model, as a role setting names them."""

    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


def spec_parse(value: str) -> ProviderSpec:
    """``"anthropic:claude-sonnet-4-5"`` → ``ProviderSpec("anthropic", "claude-sonnet-4-5")``.

    Raises ``ImproperlyConfigured`` for an unknown provider or an empty model.
    """
    provider, _, model = value.partition(":")
    if provider not in PROVIDERS or not model.strip():
        raise ImproperlyConfigured(
            f"{value!r} is not a model spec: write <provider>:<model> with provider one of "
            f"{', '.join(PROVIDERS)}."
        )
    return ProviderSpec(provider, model.strip())


def missing_key(spec: ProviderSpec) -> str | None:
    """The environment variable a spec still needs, or None when it is configured."""
    if spec.provider == "anthropic" and not settings.ANTHROPIC_API_KEY:
        return "ANTHROPIC_API_KEY"
    if spec.provider == "openai" and not (settings.OPENAI_API_KEY or settings.OPENAI_BASE_URL):
        return "OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)"
    return None


def chat_client(spec: ProviderSpec, *, http_client=None) -> ChatClient:
    """The client for ``spec`` with the configured key, timeout and retries.

    ``http_client``: an ``httpx2.Client`` for the SDK (tests pass one with a
    ``MockTransport``); without one, clients are shared per spec and configuration, so
    turns reuse the SDK's connection pool. Raises ``ImproperlyConfigured`` naming a
    missing key.
    """
    needed = missing_key(spec)
    if needed:
        raise ImproperlyConfigured(f"{spec} needs {needed} in the environment.")
    config = (settings.ANTHROPIC_API_KEY if spec.provider == "anthropic" else settings.OPENAI_API_KEY,
              settings.OPENAI_BASE_URL, settings.LLM_TIMEOUT_S, settings.LLM_MAX_RETRIES)
    if http_client is None:
        return _shared_client(spec, *config)
    return _client(spec, *config, http_client=http_client)


def _client(spec: ProviderSpec, api_key: str, base_url: str, timeout: float, max_retries: int,
            *, http_client=None) -> ChatClient:
    options = {"timeout": timeout, "max_retries": max_retries, "http_client": http_client}
    if spec.provider == "anthropic":
        from ciq.llm.anthropic_chat import AnthropicChat

        return AnthropicChat(spec.model, api_key=api_key, **options)
    from ciq.llm.openai_chat import OpenAIChat

    # A local OpenAI-compatible server usually takes any key; the SDK insists on one.
    return OpenAIChat(spec.model, api_key=api_key or "not-needed", base_url=base_url or None,
                      **options)


_shared_client = functools.cache(_client)
