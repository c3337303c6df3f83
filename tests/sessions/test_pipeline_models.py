"""End-to-end runs with model-backed roles: scripted provider answers replayed through the
real SDKs (MockTransport) on the Demo samples. The first answer holds an unsupported and a
contradicted claim; the loop revises, coverage rises, ledger and events follow."""

import json
import re
import threading
import time

import httpx2
import pytest

from sessions.events import event_chain_verify
from sessions.models import RunStatus
from sessions.selectors import turn_ledger
from sessions.services import session_ask
from tests.llm_payloads import (
    anthropic_message,
    anthropic_sse,
    openai_completion,
    request_json,
    route_models,
)
from verification.citations import strip_citations

pytestmark = pytest.mark.django_db

QUESTION = "When may a state apply for an exemption from the Fair Debt Collection Practices Act?"
SENTENCE_RE = re.compile(r"[^.]*?\[cite:[0-9a-f]{12}\]\.")


class ScriptedModels:
    """Writer on Anthropic, Skeptic and Judge on OpenAI; answers follow the prompt."""

    def __init__(self, fail_revision: bool = False):
        self.fail_revision = fail_revision
        self.writer_requests: list[dict] = []
        self.in_flight = self.peak = 0
        self.lock = threading.Lock()

    def texts(self, user: str) -> tuple[str, str]:
        ids = re.findall(r"chunk ([0-9a-f]{12})", user)
        first, second = ids[0], ids[min(1, len(ids) - 1)]
        draft = (f"A state may apply for an exemption [cite:{first}]. "
                 f"The exemption is granted automatically within 10 days [cite:{first}]. "
                 f"Exemptions are decided by the state attorney general [cite:{second}].")
        revised = (f"A state may apply for an exemption [cite:{first}]. "
                   f"The Bureau decides on exemption applications [cite:{second}].")
        return draft, revised

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = request_json(request)
        if request.url.host == "api.anthropic.com":
            return self.write(body)
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        if "skeptical reviewer" in system:
            text = user.split("Text:\n\n", 1)[1]
            claims = [{"text": strip_citations(q), "type": "policy", "quote": q.strip()}
                      for q in SENTENCE_RE.findall(text)]
            return openai_completion(json.dumps({"claims": claims}), prompt_tokens=300,
                                     completion_tokens=120)
        return self.judge(user)

    def write(self, body: dict) -> httpx2.Response:
        self.writer_requests.append(body)
        user = body["messages"][-1]["content"]
        draft, revised = self.texts(user)
        if "Claims not accepted" in user:
            if self.fail_revision:
                return httpx2.Response(500, json={"type": "error", "error": {
                    "type": "api_error", "message": "Internal server error"}})
            text = revised
        else:
            text = draft
        if not body.get("stream"):  # the two-lane synthesis answers one JSON object
            return anthropic_message(json.dumps({
                "answer_markdown": text, "used_statewide": True,
                "statewide_reason": "The exemption is federal authority.",
                "applicability_check": "Applies to any state.", "assumptions": [],
                "limitations": [], "suggested_followups": ["Who decides on exemptions?"]}))
        pieces = re.findall(r".{1,7}", text, re.S)  # token-sized deltas
        return anthropic_sse(pieces, input_tokens=900, output_tokens=len(pieces))

    def judge(self, user: str) -> httpx2.Response:
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        time.sleep(0.05)
        with self.lock:
            self.in_flight -= 1
        claim = user.rsplit("Claim: ", 1)[1]
        if "automatically" in claim:
            out = {"verdict": "not_found", "score": 0.1, "supporting": [], "contradicting": [],
                   "quote": "", "reasoning": "No passage sets a deadline."}
        elif "attorney general" in claim:
            out = {"verdict": "contradicted", "score": 0.05, "supporting": [],
                   "contradicting": [1], "quote": "",
                   "reasoning": "The passage gives the decision to the Bureau."}
        else:
            out = {"verdict": "supported", "score": 0.92, "supporting": [1], "contradicting": [],
                   "quote": "", "reasoning": "The passage states it."}
        return openai_completion(json.dumps(out), prompt_tokens=500, completion_tokens=40)


@pytest.fixture
def models(settings, monkeypatch):
    settings.CIQ_WRITER = "anthropic:claude-test"
    settings.CIQ_SKEPTIC = "openai:gpt-test"
    settings.CIQ_JUDGE = "openai:gpt-test"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    settings.OPENAI_API_KEY = "sk-test"
    settings.LLM_MAX_RETRIES = 0
    settings.JUDGE_CONCURRENCY = 3
    scripted = ScriptedModels()
    route_models(monkeypatch, scripted)
    return scripted


def verdicts(turn, cycle):
    return [e.payload["verdict"] for e in turn.session.events.filter(
        type="claim_verified", payload__cycle=cycle).order_by("seq")]


def test_the_loop_revises_unsupported_and_contradicted_claims(demo_workspace, models):
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert verdicts(turn, 0) == ["supported", "not_found", "contradicted"]
    assert verdicts(turn, 1) == ["supported", "supported"]
    first, final = turn.revisions.order_by("cycle")
    assert (round(first.coverage, 3), final.coverage) == (0.333, 1.0)
    assert turn.metrics["revision_cycles"] == 1 and turn.metrics["evidence_coverage"] == 1.0
    assert "The Bureau decides" in turn.answer_markdown and "automatically" not in turn.answer_markdown
    assert [c.ledger.verdict for c in turn_ledger(turn=turn)] == ["supported", "supported"]

    started = turn.session.events.get(type="revision_started")
    assert started.payload["unsupported"] == [
        "The exemption is granted automatically within 10 days.",
        "Exemptions are decided by the state attorney general."]
    revision_prompt = models.writer_requests[1]["messages"][-1]["content"]
    assert "[not_found] The exemption is granted automatically" in revision_prompt
    assert "[contradicted] Exemptions are decided" in revision_prompt
    assert "The passage gives the decision to the Bureau." in revision_prompt

    # Coverage 33 % is clearly short: the evidence gate searched for both missing facets.
    gate = turn.session.events.filter(type="reasoning_action", payload__text__startswith="Evidence is short")
    assert gate.count() == 2

    for cycle in (0, 1):  # coalesced deltas still add up to the text of each cycle
        chunks = list(turn.session.events.filter(type="content_chunk", payload__cycle=cycle)
                      .order_by("seq"))
        assert "".join(e.payload["delta"] for e in chunks) == chunks[-1].payload["full_content"]
    assert chunks[-1].payload["full_content"] == turn.answer_markdown

    calls = turn.metrics["model_calls"]
    assert calls["writer"]["calls"] == 2 and calls["skeptic"]["calls"] == 2
    assert calls["judge"] == {"input_tokens": 5 * 500, "output_tokens": 5 * 40, "calls": 5}
    assert turn.metrics["tokens"]["judge"] == 2700
    assert turn.metrics["tokens"]["skeptic"] == 2 * 420
    writer = calls["writer"]
    assert turn.metrics["tokens"]["writer"] == writer["input_tokens"] + writer["output_tokens"] > 900
    actions = [e.payload["text"] for e in turn.session.events.filter(type="reasoning_action")]
    assert any(a.startswith("Called anthropic:claude-test as writer (revision@1)") for a in actions)
    assert sum(a.startswith("Called openai:gpt-test as judge (judge@1)") for a in actions) == 5
    assert models.peak >= 2  # the Judge's calls ran concurrently
    assert event_chain_verify(turn.session.events.order_by("seq")) == []


def test_a_provider_failure_mid_run_keeps_the_first_revision(demo_workspace, models):
    models.fail_revision = True
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    assert turn.status == RunStatus.ERROR
    last = turn.session.events.exclude(type="turn_sealed").order_by("-seq").first()
    assert last.type == "error" and last.payload["code"] == "model_unavailable"
    assert last.payload["message"].startswith("write: anthropic:claude-test answered HTTP 500")
    assert list(turn.revisions.values_list("cycle", flat=True)) == [0]
    assert [c.ledger.verdict for c in turn_ledger(turn=turn)] == [
        "supported", "not_found", "contradicted"]
    assert turn.metrics["model_calls"]["judge"]["calls"] == 3  # usage kept on failure
    turn.session.refresh_from_db()
    assert turn.session.status == RunStatus.ERROR


def test_broken_judge_json_twice_ends_the_turn_with_a_clear_error(demo_workspace, models,
                                                                   monkeypatch):
    monkeypatch.setattr(models, "judge", lambda user: openai_completion("Supported."))
    turn = session_ask(workspace=demo_workspace, question=QUESTION)
    last = turn.session.events.exclude(type="turn_sealed").order_by("-seq").first()
    assert turn.status == RunStatus.ERROR and last.payload["code"] == "model_bad_output"
    assert "openai:gpt-test returned invalid JSON for JudgeOutput twice" in last.payload["message"]
    assert not turn.revisions.exists()  # no half-written ledger


def test_a_model_answer_that_addresses_nothing_becomes_not_answered(demo_workspace, models):
    """The scripted Judge supports every claim of the scripted revision, but none of them
    answers the question asked: support alone earns no "answered" (issue 9)."""
    turn = session_ask(workspace=demo_workspace,
                       question="What is the Oregon minimum wage for 2024?")
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert turn.outcome == "not_answered"
    assert turn.answer_markdown.startswith("Not answered: the documents searched do not state this")
    assert turn.claim_confidence["level"] == "very_low" and not turn_ledger(turn=turn).exists()
    verified = turn.session.events.filter(type="claim_verified")
    assert verified.exists() and all(e.payload["addressed"] == [] for e in verified)
    assert any(e.payload["verdict"] == "supported" for e in verified)
    final = turn.revisions.order_by("-cycle").first()
    assert final.text == turn.answer_markdown and final.coverage == 0.0
