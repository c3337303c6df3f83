"""Anthropic Messages API through the official ``anthropic`` SDK."""

from __future__ import annotations

import time
from collections.abc import Iterator

import anthropic

from ciq.llm.base import Usage, UsageMeter, sdk_errors


class AnthropicChat:
    """Streaming text (``messages.stream``) and JSON output (``output_config`` with a
    JSON schema, structured outputs). Usage = the message's ``input_tokens`` and
    ``output_tokens`` (``message_delta`` carries the final output count)."""

    def __init__(self, model: str, *, api_key: str, timeout: float, max_retries: int,
                 http_client=None):
        self.model, self.timeout = model, timeout
        self.label = f"anthropic:{model}"
        self.client = anthropic.Anthropic(api_key=api_key, timeout=timeout,
                                          max_retries=max_retries, http_client=http_client)

    def _record(self, meter: UsageMeter, purpose: str, usage, started: float) -> None:
        meter.record(purpose=purpose, model=self.label, ms=(time.perf_counter() - started) * 1000,
                     usage=Usage(usage.input_tokens or 0, usage.output_tokens or 0))

    def stream_text(self, *, system: str, messages: list[dict], max_tokens: int,
                    meter: UsageMeter, purpose: str) -> Iterator[str]:
        started = time.perf_counter()
        with sdk_errors(anthropic, self.label, self.timeout), self.client.messages.stream(
            model=self.model, system=system, messages=messages, max_tokens=max_tokens,
        ) as stream:
            yield from stream.text_stream
            self._record(meter, purpose, stream.get_final_message().usage, started)

    def complete_json(self, *, system: str, messages: list[dict], schema: dict, name: str,
                      max_tokens: int, meter: UsageMeter, purpose: str) -> str:
        started = time.perf_counter()
        with sdk_errors(anthropic, self.label, self.timeout):
            message = self.client.messages.create(
                model=self.model, system=system, messages=messages, max_tokens=max_tokens,
                output_config={"format": {"type": "json_schema",
                                          "schema": anthropic.transform_schema(schema)}},
            )
        self._record(meter, purpose, message.usage, started)
        return "".join(block.text for block in message.content if block.type == "text")
