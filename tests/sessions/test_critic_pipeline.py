"""The Critic inside a run (``sessions.pipeline``) on the Demo samples: a Draft turn over
Rivergrove's tree ordinances, whose Discussion also holds one sentence its cited passage
does not support (as a careless writer would put it), gets a Critic revision whose edits
are events, whose ledger holds only the claims left in the text, and which adds nothing
to the Writer's text; an Answer turn has no Critic."""

from __future__ import annotations

import json

import httpx2
import pytest
from django.urls import reverse

from sessions.critic import critic_check
from sessions.events import event_chain_verify
from sessions.memo import memo_sources_refreshed
from sessions.models import EventType, Mode, RevisionAuthor, RunStatus
from sessions.selectors import turn_as_dict, turn_ledger
from sessions.services import session_ask
from sessions.writer import ExtractiveWriter
from tests.llm_payloads import anthropic_message, route_models
from tests.sessions.test_pipeline_models import QUESTION as MODEL_REQUEST
from tests.sessions.test_pipeline_models import ScriptedModels
from verification.citations import cited_ids

pytestmark = pytest.mark.django_db

REQUEST = "Draft a memo on tree removal permits and penalties in Rivergrove"


OVERREACH = "Every tree removal in Rivergrove also needs a state forestry licence"


@pytest.fixture
def overreaching_writer(monkeypatch):
    """The extractive Writer's memo with :data:`OVERREACH` put first in its Discussion,
    citing a retrieved passage the memo does not cite otherwise (and listed in Sources)."""
    compose = ExtractiveWriter.compose

    def with_overreach(self, request):
        text = compose(self, request)
        if "## Discussion" not in text:
            return text
        spare = next(c for c in request.chunks if c.chunk_id not in cited_ids(text))
        claim = f"{OVERREACH} [cite:{spare.chunk_id}]."
        text = text.replace("## Discussion\n\n", f"## Discussion\n\n{claim}\n\n", 1)
        return memo_sources_refreshed(text, request.chunks)

    monkeypatch.setattr(ExtractiveWriter, "compose", with_overreach)


@pytest.fixture
def draft_turn(demo_workspace, overreaching_writer):
    turn = session_ask(workspace=demo_workspace, question=REQUEST, mode=Mode.DRAFT)
    assert turn.status == RunStatus.COMPLETED, turn.error
    return turn


def test_a_draft_gets_a_critic_revision_with_its_edits(draft_turn):
    revisions = list(draft_turn.revisions.order_by("cycle"))
    critic, written = revisions[-1], revisions[-2]
    assert critic.author == RevisionAuthor.CRITIC and critic.critic_by == "rules"
    assert all(r.author == RevisionAuthor.WRITER for r in revisions[:-1])
    assert critic.edits and draft_turn.answer_markdown == critic.text
    # Nothing added: each sentence of the answer is one of the Writer's, or part of one.
    assert critic_check(written.text, critic.text) == []
    for edit in critic.edits:
        assert edit["before"] in written.text
        if edit["action"] == "delete":
            assert edit["before"] not in critic.text
    metrics = draft_turn.metrics
    assert metrics["critic"]["by"] == "rules" and metrics["critic"]["edits"] == len(critic.edits)
    assert metrics["revision_cycles"] == critic.cycle - 1


def test_the_memo_sources_list_only_what_the_critics_text_cites(draft_turn):
    critic = draft_turn.revisions.order_by("-cycle").first()
    deleted = [e for e in critic.edits if e["action"] == "delete"]
    assert any(OVERREACH in e["before"] for e in deleted)
    text = draft_turn.answer_markdown
    listed = {line[2:] for line in text.split("## Sources", 1)[1].strip().splitlines()}
    pinpoint = {s["chunk_id"]: s["pinpoint"] for s in draft_turn.sources}
    still_cited = {pinpoint[c] for c in cited_ids(text)}
    assert listed == still_cited  # before: the deleted sentence's section stayed listed
    dropped = {pinpoint[c] for e in deleted for c in cited_ids(e["before"])} - still_cited
    assert dropped and not dropped & listed


def test_each_edit_is_an_event_and_the_log_stays_intact(draft_turn):
    session = draft_turn.session
    critic = draft_turn.revisions.order_by("-cycle").first()
    events = list(session.events.order_by("seq"))
    edits = [e for e in events if e.type == EventType.CRITIC_EDIT]
    assert [{k: e.payload[k] for k in ("action", "sentence", "before", "after", "reason", "target")}
            for e in edits] == critic.edits
    assert {e.payload["cycle"] for e in edits} == {critic.cycle}
    # The critiqued text reaches live clients as the new cycle's content, then its ledger.
    after = [e for e in events if e.seq > edits[-1].seq]
    content = next(e for e in after if e.type == EventType.CONTENT_CHUNK)
    assert content.payload["full_content"] == critic.text and content.payload["cycle"] == critic.cycle
    assert any(e.type == EventType.LEDGER_UPDATED and e.payload["cycle"] == critic.cycle for e in after)
    assert event_chain_verify(events, [(draft_turn.log_seq, draft_turn.log_hash)]) == []


def test_the_ledger_holds_the_claims_left_in_the_text(draft_turn):
    critic = draft_turn.revisions.order_by("-cycle").first()
    written = draft_turn.revisions.get(cycle=critic.cycle - 1)
    final = list(turn_ledger(turn=draft_turn))
    assert final and all(c.revision_id == critic.pk for c in final)
    for claim in final:
        assert claim.text[:40] in critic.text[claim.span_start:claim.span_end]
        assert set(claim.cited_chunk_ids) <= set(cited_ids(critic.text))
    deleted = [e["before"] for e in critic.edits if e["action"] in ("delete", "merge")]
    final_texts = {c.text for c in final}
    earlier = {c.text for c in written.claims.all()}
    for before in deleted:
        gone = {t for t in earlier if t[:60] in before}
        assert gone and not gone & final_texts  # in the Writer's ledger (history), not the final one
    # Claims the Critic left alone keep their verdicts.
    verdicts = {c.text: c.ledger.verdict for c in written.claims.select_related("ledger")}
    assert all(verdicts[c.text] == c.ledger.verdict for c in final if c.text in verdicts)


def test_the_session_page_and_json_show_the_critics_revision(demo_workspace, owner, client,
                                                            overreaching_writer):
    turn = session_ask(workspace=demo_workspace, user=owner, question=REQUEST, mode=Mode.DRAFT)
    critic = turn.revisions.order_by("-cycle").first()
    assert critic.author == RevisionAuthor.CRITIC
    data = turn_as_dict(turn=turn, with_events=False)
    assert data["revisions"][-1]["author"] == "critic"
    assert data["revisions"][-1]["edits"] == critic.edits
    client.force_login(owner)
    page = client.get(reverse("session", args=[turn.session_id])).content.decode()
    deletes = sum(e["action"] == "delete" for e in critic.edits)
    assert f"Cycle {critic.cycle}: coverage" in page
    assert f"revised because the Critic tightened it ({deletes} delete" in page


def test_an_answer_has_no_critic(demo_workspace):
    turn = session_ask(workspace=demo_workspace, question=REQUEST.replace("Draft a memo on",
                                                                          "What are the"),
                       mode=Mode.ANSWER)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert not turn.revisions.filter(author=RevisionAuthor.CRITIC).exists()
    assert not turn.session.events.filter(type=EventType.CRITIC_EDIT).exists()
    assert turn.metrics["critic"] is None


def test_the_critic_can_be_turned_on_for_answers(demo_workspace, settings):
    settings.CIQ_CRITIC_MODES = ("draft", "answer")
    turn = session_ask(workspace=demo_workspace, question="Draft a memo on tree removal permits "
                       "and penalties in Rivergrove", mode=Mode.ANSWER)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert turn.metrics["critic"] is not None and turn.metrics["critic"]["by"] == "rules"


# --- a model Writer gets a model Critic ------------------------------------------------------

class CriticModels(ScriptedModels):
    """The scripted Writer, Skeptic and Judge of test_pipeline_models, and a Critic that
    answers ``reply`` (a dict of edits, or an HTTP status for a provider failure)."""

    def __init__(self, reply):
        super().__init__()
        self.reply = reply
        self.critic_requests: list[dict] = []

    def write(self, body: dict) -> httpx2.Response:
        if "You are the Critic" in json.dumps(body):
            self.critic_requests.append(body)
            if isinstance(self.reply, int):
                return httpx2.Response(self.reply, json={"type": "error", "error": {
                    "type": "api_error", "message": "Internal server error"}})
            return anthropic_message(json.dumps(self.reply))
        return super().write(body)


@pytest.fixture
def model_roles(settings, monkeypatch):
    settings.CIQ_WRITER = "anthropic:claude-test"
    settings.CIQ_SKEPTIC = "openai:gpt-test"
    settings.CIQ_JUDGE = "openai:gpt-test"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    settings.OPENAI_API_KEY = "sk-test"
    settings.LLM_MAX_RETRIES = 0

    def use(reply):
        scripted = CriticModels(reply)
        route_models(monkeypatch, scripted)
        return scripted
    return use


def critic_trace(turn) -> list[str]:
    return [e.payload["text"] for e in turn.session.events.filter(
        type=EventType.REASONING_OBSERVATION, payload__stage="critique")]


def test_a_model_critics_shortening_is_applied_and_judged_again(demo_workspace, model_roles):
    models = model_roles({"edits": [{"action": "shorten", "sentence": 2,
                                     "text": "The Bureau decides.", "reason": "Tighter."}]})
    turn = session_ask(workspace=demo_workspace, question=MODEL_REQUEST, mode=Mode.DRAFT)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert len(models.critic_requests) == 1
    critic = turn.revisions.order_by("-cycle").first()
    assert (critic.author, critic.critic_by) == (RevisionAuthor.CRITIC, "model")
    assert "The Bureau decides [cite:" in critic.text and "applications" not in critic.text
    assert critic_trace(turn)[-1] == "Critic: 1 edit(s): 1 shorten."
    # The Critic's model call is in the trace and the writer's token count.
    actions = turn.session.events.filter(type=EventType.REASONING_ACTION, payload__prompt="critic@1")
    assert actions.count() == 1 and turn.metrics["model_calls"]["writer"]["calls"] == 3
    assert [c.ledger.verdict for c in turn_ledger(turn=turn)] == ["supported", "supported"]


def test_a_model_critic_that_adds_words_yields_to_the_rules(demo_workspace, model_roles):
    model_roles({"edits": [{"action": "shorten", "sentence": 1,
                            "text": "Any state may always apply.", "reason": "x"}]})
    turn = session_ask(workspace=demo_workspace, question=MODEL_REQUEST, mode=Mode.DRAFT)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert critic_trace(turn)[-1].startswith("Critic model's edits rejected (adds or reorders words")
    assert turn.metrics["critic"]["by"] == "rules"
    assert "Any state may always apply" not in turn.answer_markdown


def test_a_failing_model_critic_keeps_the_draft_and_says_so(demo_workspace, model_roles):
    model_roles(500)
    turn = session_ask(workspace=demo_workspace, question=MODEL_REQUEST, mode=Mode.DRAFT)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert critic_trace(turn)[-1].startswith("Critic model failed (")
    assert "kept as written" in critic_trace(turn)[-1]
    assert not turn.revisions.filter(author=RevisionAuthor.CRITIC).exists()
    assert turn.metrics["critic"]["by"] == "none"
