"""Model-provider clients (DESIGN.md §1 "Model-backed", §2 ``ciq/llm/``).

A role setting names a provider and a model (``CIQ_WRITER=anthropic:<model>``,
``CIQ_JUDGE=openai:<model>``); :func:`chat_client` builds the client from the keys in
the environment. Every client streams text (the Writer) and answers JSON validated
against a pydantic schema (:func:`json_call`, Skeptic and Judge). Failures are
:class:`LLMError` with a ``code``, which the pipeline shows in the turn's ``error`` event.
"""

from ciq.llm.base import ChatClient, LLMError, ModelOutputError, Prompt, Usage, UsageMeter
from ciq.llm.providers import PROVIDERS, ProviderSpec, chat_client, spec_parse
from ciq.llm.structured import json_call

__all__ = [
    "Prompt",
    "PROVIDERS", "ChatClient", "LLMError", "ModelOutputError", "ProviderSpec", "Usage",
    "UsageMeter", "chat_client", "json_call", "spec_parse",
]
