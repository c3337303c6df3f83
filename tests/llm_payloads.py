"""Realistic provider payloads for tests that run the real SDKs over ``httpx2.MockTransport``
(the SDKs' HTTP layer): Anthropic Messages SSE and JSON, OpenAI chat-completion chunks and
JSON, and a helper that routes the SDK clients of ``ciq.roles`` to a handler."""

from __future__ import annotations

import json

import httpx2

from ciq.llm import providers

SSE = {"content-type": "text/event-stream"}


def anthropic_sse(pieces: list[str], *, input_tokens: int = 812, output_tokens: int = 64,
                  model: str = "claude-test") -> httpx2.Response:
    """A streamed Message: message_start, ping, text deltas, message_delta with the final
    usage, message_stop (https://docs.anthropic.com/en/api/messages-streaming)."""
    events = [
        {"type": "message_start", "message": {
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        *({"type": "content_block_delta", "index": 0,
           "delta": {"type": "text_delta", "text": p}} for p in pieces),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": output_tokens}},
        {"type": "message_stop"},
    ]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)
    return httpx2.Response(200, content=body.encode(), headers=SSE)


def anthropic_message(text: str, *, input_tokens: int = 400, output_tokens: int = 90,
                      model: str = "claude-test") -> httpx2.Response:
    """A non-streamed Message whose text is ``text`` (structured output arrives as text)."""
    return httpx2.Response(200, json={
        "id": "msg_01", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    })


def openai_sse(pieces: list[str], *, prompt_tokens: int = 700, completion_tokens: int = 55,
               model: str = "gpt-test") -> httpx2.Response:
    """A streamed chat completion with ``stream_options.include_usage``: role chunk,
    content chunks, finish chunk, a usage chunk with empty choices, [DONE]."""
    base = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1730000000,
            "model": model, "system_fingerprint": "fp_1"}
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "logprobs": None, "finish_reason": None}]}]
    chunks += [{**base, "choices": [{"index": 0, "delta": {"content": p}, "logprobs": None,
                                     "finish_reason": None}]} for p in pieces]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "logprobs": None,
                                        "finish_reason": "stop"}]})
    chunks.append({**base, "choices": [], "usage": {
        "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens}})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return httpx2.Response(200, content=body.encode(), headers=SSE)


def openai_completion(text: str, *, prompt_tokens: int = 350, completion_tokens: int = 80,
                      model: str = "gpt-test") -> httpx2.Response:
    """A non-streamed chat completion whose message content is ``text``."""
    return httpx2.Response(200, json={
        "id": "chatcmpl-8", "object": "chat.completion", "created": 1730000000, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text,
                                             "refusal": None},
                     "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def route_models(monkeypatch, handler) -> None:
    """Make every client ``ciq.roles`` builds send its requests to ``handler``."""
    real = providers.chat_client
    monkeypatch.setattr("ciq.roles.chat_client", lambda spec: real(
        spec, http_client=httpx2.Client(transport=httpx2.MockTransport(handler))))


def request_json(request: httpx2.Request) -> dict:
    return json.loads(request.content)
