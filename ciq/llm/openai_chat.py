"""OpenAI Chat Completions through the official ``openai`` SDK; with a base URL, any
OpenAI-compatible server (vLLM, Ollama, llama.cpp)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import openai

from ciq.llm.base import Usage, UsageMeter, sdk_errors


class OpenAIChat:
    """Streaming text (``stream=True`` with ``stream_options.include_usage``: the last
    chunk carries the usage) and JSON output (``response_format`` ``json_schema``, not
    strict, so compatible servers accept it; the answer is validated by ``json_call``)."""

    def __init__(self, model: str, *, api_key: str, base_url: str | None, timeout: float,
                 max_retries: int, http_client=None):
        self.model, self.timeout = model, timeout
        self.label = f"openai:{model}"
        self.client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout,
                                    max_retries=max_retries, http_client=http_client)

    def _record(self, meter: UsageMeter, purpose: str, usage, started: float) -> None:
        meter.record(purpose=purpose, model=self.label, ms=(time.perf_counter() - started) * 1000,
                     usage=Usage(usage.prompt_tokens, usage.completion_tokens) if usage else Usage())

    @staticmethod
    def _messages(system: str, messages: list[dict]) -> list[dict]:
        return [{"role": "system", "content": system}, *messages]

    def stream_text(self, *, system: str, messages: list[dict], max_tokens: int,
                    meter: UsageMeter, purpose: str) -> Iterator[str]:
        started, usage = time.perf_counter(), None
        with sdk_errors(openai, self.label, self.timeout):
            stream = self.client.chat.completions.create(
                model=self.model, messages=self._messages(system, messages),
                max_completion_tokens=max_tokens, stream=True,
                stream_options={"include_usage": True},
            )
            with stream:
                for chunk in stream:
                    usage = chunk.usage or usage
                    if chunk.choices and chunk.choices[0].delta.content:
                        yield chunk.choices[0].delta.content
        self._record(meter, purpose, usage, started)

    def complete_json(self, *, system: str, messages: list[dict], schema: dict, name: str,
                      max_tokens: int, meter: UsageMeter, purpose: str) -> str:
        started = time.perf_counter()
        with sdk_errors(openai, self.label, self.timeout):
            completion = self.client.chat.completions.create(
                model=self.model, messages=self._messages(system, messages),
                max_completion_tokens=max_tokens,
                response_format={"type": "json_schema",
                                 "json_schema": {"name": name, "schema": schema}},
            )
        self._record(meter, purpose, completion.usage, started)
        return completion.choices[0].message.content or ""
