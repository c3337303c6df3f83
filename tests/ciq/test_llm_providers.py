"""Provider clients through the real SDKs, their HTTP layer replaced by MockTransport."""

import httpx2
import pydantic
import pytest
from django.core.exceptions import ImproperlyConfigured

from ciq.llm import LLMError, ModelOutputError, UsageMeter, chat_client, json_call, spec_parse
from ciq.llm.providers import ProviderSpec
from tests.llm_payloads import (
    anthropic_message,
    anthropic_sse,
    openai_completion,
    openai_sse,
    request_json,
)


class Verdict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    verdict: str
    score: float


@pytest.fixture(autouse=True)
def keys(settings):
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = ""
    settings.LLM_MAX_RETRIES = 2
    settings.LLM_TIMEOUT_S = 5.0


def client(spec: str, handler):
    return chat_client(spec_parse(spec),
                       http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def scripted(*responses):
    """A handler answering the given responses in turn; ``seen`` keeps the requests."""
    queue = list(responses)

    def handler(request):
        handler.seen.append(request)
        answer = queue.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    handler.seen = []
    return handler


def test_a_spec_names_provider_and_model():
    assert spec_parse("anthropic:claude-sonnet-4-5") == ProviderSpec("anthropic", "claude-sonnet-4-5")
    assert str(spec_parse("openai:llama3.1:8b")) == "openai:llama3.1:8b"  # Ollama tags keep ":"
    for bad in ("mistral:large", "openai:", "anthropic"):
        with pytest.raises(ImproperlyConfigured, match="<provider>:<model>"):
            spec_parse(bad)


def test_a_missing_key_is_refused_by_name(settings):
    settings.ANTHROPIC_API_KEY = ""
    with pytest.raises(ImproperlyConfigured, match="ANTHROPIC_API_KEY"):
        chat_client(spec_parse("anthropic:claude-test"))


def test_an_anthropic_stream_yields_its_deltas_and_records_usage():
    handler = scripted(anthropic_sse(["The notice ", "must be sent ", "within 30 days."],
                                     input_tokens=812, output_tokens=17))
    meter = UsageMeter()
    chat = client("anthropic:claude-test", handler)
    deltas = list(chat.stream_text(system="Be brief.", messages=[{"role": "user", "content": "Q"}],
                                   max_tokens=300, meter=meter, purpose="answer@1"))
    assert deltas == ["The notice ", "must be sent ", "within 30 days."]
    body = request_json(handler.seen[0])
    assert body["stream"] is True and body["system"] == "Be brief." and body["model"] == "claude-test"
    assert meter.totals() == {"input_tokens": 812, "output_tokens": 17, "calls": 1}
    assert meter.calls[0]["purpose"] == "answer@1" and meter.calls[0]["model"] == "anthropic:claude-test"


def test_an_openai_compatible_server_streams_with_usage(settings):
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = "http://vllm.firm.internal:8000/v1"
    handler = scripted(openai_sse(["Applications ", "go to the ", "county clerk."],
                                  prompt_tokens=640, completion_tokens=12))
    meter = UsageMeter()
    chat = client("openai:meta-llama/Llama-3.1-8B-Instruct", handler)
    text = "".join(chat.stream_text(system="S", messages=[{"role": "user", "content": "Q"}],
                                    max_tokens=200, meter=meter, purpose="answer@1"))
    assert text == "Applications go to the county clerk."
    request = handler.seen[0]
    assert str(request.url) == "http://vllm.firm.internal:8000/v1/chat/completions"
    body = request_json(request)
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"][0] == {"role": "system", "content": "S"}
    assert meter.totals() == {"input_tokens": 640, "output_tokens": 12, "calls": 1}


@pytest.mark.parametrize("spec, response, schema_path", [
    ("anthropic:claude-test", anthropic_message, ("output_config", "format", "type")),
    ("openai:gpt-test", openai_completion, ("response_format", "type")),
])
def test_json_output_is_asked_with_the_schema_and_validated(spec, response, schema_path):
    handler = scripted(response('{"verdict": "supported", "score": 0.92}'))
    meter = UsageMeter()
    out = json_call(client(spec, handler), Verdict, system="Judge.", user="Claim.",
                    max_tokens=100, meter=meter, purpose="judge@1")
    assert out == Verdict(verdict="supported", score=0.92)
    body = request_json(handler.seen[0])
    value = body
    for key in schema_path:
        value = value[key]
    assert value == "json_schema"
    assert meter.totals()["calls"] == 1


def test_a_rate_limit_is_retried_after_its_delay_then_succeeds():
    handler = scripted(
        httpx2.Response(429, headers={"retry-after-ms": "20"}, json={
            "type": "error", "error": {"type": "rate_limit_error", "message": "Rate limited"}}),
        anthropic_message('{"verdict": "weak", "score": 0.5}'),
    )
    out = json_call(client("anthropic:claude-test", handler), Verdict, system="J", user="C",
                    max_tokens=50, meter=UsageMeter(), purpose="judge@1")
    assert out.verdict == "weak" and len(handler.seen) == 2


def test_rate_limits_beyond_the_retries_are_a_clear_error(settings):
    settings.LLM_MAX_RETRIES = 1
    limited = httpx2.Response(429, headers={"retry-after-ms": "5"},
                              json={"error": {"message": "Rate limit reached", "type": "requests"}})
    handler = scripted(limited, limited)
    with pytest.raises(LLMError) as caught:
        json_call(client("openai:gpt-test", handler), Verdict, system="J", user="C",
                  max_tokens=50, meter=UsageMeter(), purpose="judge@1")
    assert caught.value.code == "model_rate_limited"
    assert "openai:gpt-test" in str(caught.value)


def test_a_timeout_is_retried_then_reported_with_its_code(settings):
    settings.LLM_MAX_RETRIES = 1
    timeout = httpx2.ReadTimeout("read timed out")
    handler = scripted(timeout, timeout)
    chat = client("anthropic:claude-test", handler)
    with pytest.raises(LLMError) as caught:
        list(chat.stream_text(system="S", messages=[{"role": "user", "content": "Q"}],
                              max_tokens=10, meter=UsageMeter(), purpose="answer@1"))
    assert caught.value.code == "model_timeout"
    assert str(caught.value) == "anthropic:claude-test did not answer within 5 s."
    assert len(handler.seen) == 2


def test_a_server_error_after_retries_is_unavailable(settings):
    settings.LLM_MAX_RETRIES = 0
    handler = scripted(httpx2.Response(503, json={"error": {"message": "overloaded"}}))
    with pytest.raises(LLMError) as caught:
        list(client("openai:gpt-test", handler).stream_text(
            system="S", messages=[{"role": "user", "content": "Q"}], max_tokens=10,
            meter=UsageMeter(), purpose="answer@1"))
    assert caught.value.code == "model_unavailable"


@pytest.mark.parametrize("spec, response", [
    ("anthropic:claude-test", anthropic_message), ("openai:gpt-test", openai_completion)])
def test_broken_json_gets_one_repair_turn(spec, response):
    handler = scripted(response('{"verdict": "supported", "score": 0.9'),  # cut off
                       response('```json\n{"verdict": "supported", "score": 0.9}\n```'))
    meter = UsageMeter()
    out = json_call(client(spec, handler), Verdict, system="J", user="C", max_tokens=50,
                    meter=meter, purpose="judge@1")
    assert out.score == 0.9
    repair = request_json(handler.seen[1])["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"verdict": "supported", "score": 0.9'}
    assert "not valid JSON" in repair[-1]["content"]
    assert [c["purpose"] for c in meter.calls] == ["judge@1", "judge@1 (repair)"]


def test_broken_json_twice_is_a_clear_error():
    handler = scripted(openai_completion("The claim is supported."),
                       openai_completion('{"verdict": "supported"}'))
    with pytest.raises(ModelOutputError) as caught:
        json_call(client("openai:gpt-test", handler), Verdict, system="J", user="C",
                  max_tokens=50, meter=UsageMeter(), purpose="judge@1")
    assert caught.value.code == "model_bad_output"
    assert "openai:gpt-test returned invalid JSON for Verdict twice (judge@1): score" in str(
        caught.value)


def test_closing_a_stream_early_stops_reading_it():
    handler = scripted(anthropic_sse(["one ", "two ", "three"]))
    meter = UsageMeter()
    stream = client("anthropic:claude-test", handler).stream_text(
        system="S", messages=[{"role": "user", "content": "Q"}], max_tokens=10, meter=meter,
        purpose="answer@1")
    assert next(stream) == "one "
    stream.close()  # the consumer cancels: no usage is recorded for an unfinished call
    assert meter.calls == []
