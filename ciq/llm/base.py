"""What every provider client offers, its errors and its token accounting."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Protocol


@dataclass(frozen=True)
class Prompt:
    """A system and a user message, with the prompt's name and version (each role's prompt
    module builds one: ``sessions/prompts/`` for the Writer and Critic,
    ``verification/prompts/`` for the Skeptic and Judge)."""

    name: str
    version: str
    system: str
    user: str

    @property
    def tag(self) -> str:
        """``"answer@2"``: what the trace records for the call."""
        return f"{self.name}@{self.version}"


class LLMError(RuntimeError):
    """A provider call that failed for good (after the SDK's own retries).

    ``code`` (``model_timeout``, ``model_rate_limited``, ``model_unavailable``,
    ``model_rejected``, ``model_unreachable``, ``model_bad_output``) is what the turn's
    ``error`` event carries; the message names the provider and model.
    """

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class ModelOutputError(LLMError):
    """The model's JSON was still invalid after the one repair retry."""

    def __init__(self, message: str):
        super().__init__("model_bad_output", message)


@dataclass(frozen=True)
class Usage:
    """Tokens of one call as the provider reported them."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class UsageMeter:
    """Calls and tokens of one role backend during one turn (thread-safe: the Judge's
    calls run concurrently).

    ``calls``: ``[{"purpose", "model", "input_tokens", "output_tokens", "ms"}, ...]`` in
    completion order; the pipeline turns each into a reasoning action/observation.
    """

    calls: list[dict] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, *, purpose: str, model: str, usage: Usage, ms: float) -> None:
        with self._lock:
            self.calls.append({
                "purpose": purpose, "model": model, "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens, "ms": round(ms, 1),
            })

    def totals(self) -> dict:
        """``{"input_tokens", "output_tokens", "calls"}`` summed over the calls so far."""
        with self._lock:
            return {
                "input_tokens": sum(c["input_tokens"] for c in self.calls),
                "output_tokens": sum(c["output_tokens"] for c in self.calls),
                "calls": len(self.calls),
            }


class ChatClient(Protocol):
    """One provider and model. ``messages`` are ``[{"role": "user"|"assistant",
    "content": str}, ...]``; ``max_tokens`` bounds the output. Both methods raise
    :class:`LLMError` once the SDK's retries (rate limits, 5xx, timeouts) are spent."""

    label: str  # "anthropic:<model>"

    def stream_text(self, *, system: str, messages: list[dict], max_tokens: int,
                    meter: UsageMeter, purpose: str) -> Iterator[str]:
        """Yield text deltas as they arrive; record the usage when the stream ends.
        Closing the generator early closes the HTTP response (cancellation)."""
        ...

    def complete_json(self, *, system: str, messages: list[dict], schema: dict, name: str,
                      max_tokens: int, meter: UsageMeter, purpose: str) -> str:
        """The model's whole answer, asked for as JSON matching ``schema`` (not yet
        validated: see :func:`ciq.llm.json_call`)."""
        ...


@contextmanager
def sdk_errors(sdk: ModuleType, label: str, timeout_s: float) -> Iterator[None]:
    """Turn the SDK's exceptions (both SDKs share the names) into :class:`LLMError`.

    The SDK has already retried 408/409/429/5xx and connection errors with backoff
    (``max_retries``) when this sees them.
    """
    try:
        yield
    except sdk.APITimeoutError as exc:
        raise LLMError("model_timeout", f"{label} did not answer within {timeout_s:g} s.") from exc
    except sdk.RateLimitError as exc:
        raise LLMError("model_rate_limited", f"{label} is rate-limited (HTTP 429) after "
                       "retries; try again later.") from exc
    except sdk.APIStatusError as exc:
        code = "model_unavailable" if exc.status_code >= 500 else "model_rejected"
        raise LLMError(code, f"{label} answered HTTP {exc.status_code}: {exc.message}") from exc
    except sdk.APIConnectionError as exc:
        raise LLMError("model_unreachable", f"{label} could not be reached: {exc}") from exc
