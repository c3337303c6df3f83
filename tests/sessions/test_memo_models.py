"""A model Writer drafts the memo (issue 13, item 1): the Draft prompt asks for the memo's
structure and gives the header to copy; the model's memo is verified by the embedded
Skeptic and Judge, which read only its cited sentences. The provider is scripted and
replayed through the real Anthropic SDK (MockTransport) on the Demo samples."""

import json
import re

import pytest

from sessions.models import RunStatus
from sessions.prompts import draft
from sessions.selectors import turn_ledger
from sessions.services import session_ask
from tests.llm_payloads import anthropic_sse, openai_completion, request_json, route_models
from verification.citations import cited_ids

pytestmark = pytest.mark.django_db

REQUEST = "Draft a memo on tree removal permits and penalties in Rivergrove"
PASSAGE_RE = re.compile(r"^\[\d+\] chunk ([0-9a-f]{12}) \|[^\n]*\n(.*?)(?=^\[\d+\] chunk |\Z)", re.M | re.S)


def quotable(text: str) -> str | None:
    """The first plain sentence of a passage that names a permit or a fine, as written."""
    for sentence in re.split(r"(?<=\.)\s+", " ".join(text.split())):
        if (re.search(r"\b(permit|fine)\b", sentence) and 8 <= len(sentence.split()) <= 60
                and re.fullmatch(r"[A-Z][\w ,'()$.:-]+\.", sentence)):
            return sentence
    return None


class MemoWriter:
    """Anthropic Writer that answers the Draft prompt with a memo quoting two passages."""

    def __init__(self):
        self.requests: list[dict] = []

    def __call__(self, request):
        body = request_json(request)
        self.requests.append(body)
        user = body["messages"][-1]["content"]
        header = user.split("Header block:\n\n", 1)[1].split("\n\nDraft request:", 1)[0]
        quotes = [(cid, q) for cid, text in PASSAGE_RE.findall(user) if (q := quotable(text))][:3]
        cited = [f"{q[:-1]} [cite:{cid}]." for cid, q in quotes]
        memo = (f"{header}\n\n## Question Presented\n\n1. Is a permit required to remove a tree in "
                f"Rivergrove?\n2. What is the penalty?\n\n## Short Answer\n\n{cited[0]} {cited[1]}\n\n"
                f"## Discussion\n\n### Tree removal permits\n\n#### Municipal\n\n{cited[-1]}\n\n"
                f"Superseded: Rivergrove Ord. No. 54-89C (1989), amended by Rivergrove Ord. No. "
                f"89-2018 (2018).\n\n## Requirements and permits\n\nNot found in available sources: "
                f"no permit, licence, notice or filing requirement.\n\n## Open questions\n\n- Whether "
                f"the City charges a fee for a second tree.\n\n## Sources\n\n- Rivergrove Ord. No. "
                f"89-2018 § (D)\n- Rivergrove Ord. No. 54-89C § 5.100\n")
        pieces = re.findall(r".{1,9}", memo, re.S)
        return anthropic_sse(pieces, input_tokens=1200, output_tokens=len(pieces))


@pytest.fixture
def memo_writer(settings, monkeypatch):
    settings.CIQ_WRITER = "anthropic:claude-test"
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    settings.LLM_MAX_RETRIES = 0
    writer = MemoWriter()
    route_models(monkeypatch, writer)
    return writer


def test_a_model_writer_is_asked_for_the_memo_and_only_its_cited_sentences_are_claims(
        demo_workspace, memo_writer):
    turn = session_ask(workspace=demo_workspace, mode="draft", question=REQUEST)
    assert turn.status == RunStatus.COMPLETED, turn.error
    body = memo_writer.requests[0]
    system = body["system"] if isinstance(body["system"], str) else body["system"][0]["text"]
    for section in ("## Question Presented", "## Short Answer", "## Discussion",
                    "## Requirements and permits", "## Open questions", "## Sources"):
        assert section in system
    user = body["messages"][-1]["content"]
    assert "Header block:\n\n# MEMORANDUM\n\n**To:** [Recipient]\n\n**From:** [Author]" in user
    assert "**Re:** Tree removal permits and penalties in Rivergrove" in user
    prompts = turn.session.events.filter(type="reasoning_action", payload__role="writer")
    assert any(e.payload.get("prompt") == f"draft@{draft.PROMPT_VERSION}" for e in prompts)
    assert draft.PROMPT_VERSION == "2"

    text = turn.answer_markdown
    assert text.startswith("# MEMORANDUM")
    claims = list(turn_ledger(turn=turn).values_list("text", flat=True))
    substantive = text.split("## Short Answer", 1)[1].split("## Open questions", 1)[0]
    assert len(claims) == len(cited_ids(substantive)) == 3
    assert not any(c.startswith(("Superseded", "Is a permit", "Whether", "Rivergrove Ord.", "Not found"))
                   for c in claims)
    assert turn.metrics["claims"] == 3


def test_a_model_skeptic_reads_the_memo_without_its_template(demo_workspace, memo_writer, settings,
                                                             monkeypatch):
    settings.CIQ_SKEPTIC = "openai:gpt-test"
    settings.OPENAI_API_KEY = "sk-test"
    read: list[str] = []

    def provider(request):
        if request.url.host != "api.openai.com":
            return memo_writer(request)
        text = request_json(request)["messages"][-1]["content"].split("Text:\n\n", 1)[1]
        read.append(text)
        quotes = re.findall(r"[A-Z][^\n]*?\[cite:[0-9a-f]{12}\]\.", text)
        claims = [{"text": q.split(" [cite:")[0], "type": "policy", "quote": q} for q in quotes]
        return openai_completion(json.dumps({"claims": claims}), prompt_tokens=300, completion_tokens=90)

    route_models(monkeypatch, provider)
    turn = session_ask(workspace=demo_workspace, mode="draft", question=REQUEST)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert read and "[cite:" in read[0]
    # Before, the model read the header, the restated question, the open questions and the
    # sources as text to claim from (and the Critic could delete them as unsupported).
    for template in ("[Recipient]", "Is a permit required", "Whether the City charges", "§ (D)"):
        assert template not in read[0]
    assert turn.metrics["claims"] == 3
