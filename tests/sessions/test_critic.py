"""The Critic (``sessions.critic``, issue 13 item 3) on real documents: Rivergrove
Ordinance No. 89-2018 (tree cutting) and the Demo samples. Claims are extracted and
judged by the embedded Skeptic and Judge, as in a run; the Critic may only delete,
shorten, merge or move claim sentences, and ``critic_check`` proves it added nothing."""

from __future__ import annotations

import json

import pytest

from ciq.llm import LLMError
from ciq.llm.base import UsageMeter
from retrieval.models import Chunk
from sessions.critic import (
    CriticResult,
    critic_check,
    critic_model,
    critic_rules,
    critic_sentences,
)
from verification.citations import cited_ids, strip_citations
from verification.judge import EvidenceChunk, RuleJudge
from verification.services import claim_verify
from verification.skeptic import RuleSkeptic

pytestmark = pytest.mark.django_db


def chunk(workspace, heading: str) -> Chunk:
    return Chunk.objects.get(document__workspace=workspace,
                             document__citation_label__startswith="Rivergrove Ord. No. 89-2018",
                             heading=heading)


def verified(text: str, chunks: list[Chunk]):
    evidence = [EvidenceChunk(chunk_id=c.chunk_id, text=c.text, context=c.heading) for c in chunks]
    return [claim_verify(claim=c, evidence=evidence, mode="strict", judge=RuleJudge())
            for c in RuleSkeptic().extract(text)]


@pytest.fixture
def authority(demo_workspace) -> Chunk:
    return Chunk.objects.get(document__workspace=demo_workspace, text__contains="### (A) AUTHORITY")


@pytest.fixture
def application(demo_workspace) -> Chunk:
    return chunk(demo_workspace, "1. **APPLICATION FOR A CUTTING PERMIT")


@pytest.fixture
def draft(authority, application):
    """A draft over § 5.100 (A) with one sentence of each kind the Critic fixes."""
    a, b = authority.chunk_id, application.chunk_id
    text = (
        "## Authority\n\n"
        "The City Council confers its non-legislative functions to the Planning Commission and "
        f"City Manager to administer and enforce this Ordinance [cite:{a}]. "
        "This includes the right to review permits, issue permits, issue notices of violation, "
        f"levy fines, issue notices to perform work, and notices to stop work [cite:{a}]. "
        "The Planning Commission may levy fines and issue permits, and its decisions are final "
        f"and cannot be appealed to the City Council [cite:{a}]. "
        "This includes the right to review permits, issue permits, issue notices of violation, "
        f"levy fines, and issue notices to perform work [cite:{a}, {b}]. "
        f"The City Arborist must approve every fence higher than forty feet [cite:{a}]. "
        f"The following officials are responsible [cite:{a}].\n"
    )
    claims = verified(text, [authority, application])
    return text, claims, {authority.chunk_id: authority.text, application.chunk_id: application.text}


def test_the_judge_sees_what_the_critic_is_given(draft):
    _, claims, _ = draft
    assert [v.judgement.verdict for v in claims] == [
        "supported", "supported", "weak", "supported", "not_found", "not_found"]


def test_the_rules_delete_overreach_shorten_merge_and_drop_a_dangling_reference(draft, authority,
                                                                                 application):
    text, claims, evidence = draft
    result = critic_rules(text, claims, evidence)
    assert result.by == "rules"
    actions = {e.sentence: (e.action, e.after) for e in result.edits}
    a, b = authority.chunk_id, application.chunk_id
    # 3: weak; its head is the passage's, its tail ("decisions are final …") is not.
    assert actions[3] == ("shorten", f"The Planning Commission may levy fines and issue permits [cite:{a}].")
    # 4 repeats 2: removed, and its extra source joins sentence 2's citation.
    assert actions[4][0] == "merge"
    assert actions[4][1].endswith(f"notices to stop work [cite:{a}, {b}].")
    # 5: not found in the passage: overreach. 6: announces a list that never comes.
    assert actions[5] == ("delete", "")
    assert actions[6] == ("delete", "")
    assert "dangling" in next(e.reason for e in result.edits if e.sentence == 6)
    assert 1 not in actions and 2 not in actions
    assert result.text == (
        "## Authority\n\n"
        "The City Council confers its non-legislative functions to the Planning Commission and "
        f"City Manager to administer and enforce this Ordinance [cite:{a}]. "
        "This includes the right to review permits, issue permits, issue notices of violation, "
        f"levy fines, issue notices to perform work, and notices to stop work [cite:{a}, {b}]. "
        f"The Planning Commission may levy fines and issue permits [cite:{a}].\n")
    assert critic_check(text, result.text) == []
    assert result.note == "Critic: 4 edit(s): 2 deletes, 1 shorten, 1 merge."


def test_a_list_introduction_moves_next_to_its_list_and_stays_when_it_leads_it(authority):
    a = authority.chunk_id
    moved = (f"Cutting is defined as follows [cite:{a}]. A tree is a standing woody plant with "
             f"a main stem or trunk of at least 12\" DBH [cite:{a}].\n"
             f"- Complete removal, such as cutting to the ground or extraction, of a tree [cite:{a}].\n"
             "- Taking any action foreseeably leading to the death of a tree or permanent damage "
             f"to a tree's health [cite:{a}].\n")
    result = critic_rules(moved, verified(moved, [authority]), {a: authority.text})
    assert [(e.action, e.sentence) for e in result.edits] == [("move", 1)]
    assert result.text.split("\n")[0] == (
        f"A tree is a standing woody plant with a main stem or trunk of at least 12\" DBH [cite:{a}]. "
        f"Cutting is defined as follows [cite:{a}].")
    assert critic_check(moved, result.text) == []
    # Right before its list the introduction is left alone, weak or not.
    kept = moved.replace(f"Cutting is defined as follows [cite:{a}]. ", "") \
        .replace("\n- Complete", f"\nCutting is defined as follows [cite:{a}]:\n- Complete")
    assert critic_rules(kept, verified(kept, [authority]), {a: authority.text}).edits == []


def test_a_supported_text_is_left_as_it_is(authority):
    a = authority.chunk_id
    text = ("The regulations of this Ordinance are adopted under the City's power to regulate "
            f"to protect the public health, safety and welfare [cite:{a}]. They shall receive "
            f"advice and guidance from the City Arborist [cite:{a}].")
    result = critic_rules(text, verified(text, [authority]), {a: authority.text})
    assert (result.text, result.edits) == (text, [])


# --- the no-addition invariant --------------------------------------------------------------

def test_the_check_accepts_deletions_prefixes_and_merged_citations(draft, authority, application):
    text, _, _ = draft
    a, b = authority.chunk_id, application.chunk_id
    assert critic_check(text, "## Authority\n") == []
    assert critic_check(text, f"The Planning Commission may levy fines and issue permits [cite:{a}].") == []
    assert critic_check(text, "This includes the right to review permits, issue permits, issue "
                        "notices of violation, levy fines, issue notices to perform work, and "
                        f"notices to stop work [cite:{a}, {b}].") == []


def test_the_check_refuses_a_new_word_a_reordering_or_a_foreign_citation(draft, authority,
                                                                          application):
    text, _, _ = draft
    a, b = authority.chunk_id, application.chunk_id
    added = f"The Planning Commission may levy fines of $5,000 and issue permits [cite:{a}]."
    assert "adds or reorders words" in critic_check(text, added)[0]
    swapped = f"The Planning Commission may issue permits and levy fines [cite:{a}]."
    assert "adds or reorders words" in critic_check(text, swapped)[0]
    dropped_middle = f"The Planning Commission may issue permits [cite:{a}]."
    assert critic_check(text, dropped_middle)  # not a run of consecutive words
    foreign = f"The City Council confers its non-legislative functions [cite:{b}]."
    assert "cites" in critic_check(text, foreign)[0]
    # A marker on a line of its own belongs to the sentence before it.
    assert critic_check(text, f"The City Arborist must approve every fence higher than forty "
                        f"feet.\n[cite:{b}]")


# --- the model Critic ------------------------------------------------------------------------

class FakeChat:
    """A ChatClient stand-in for ``json_call``: answers ``replies`` in turn (an exception
    instance is raised)."""

    label = "fake:critic"

    def __init__(self, *replies):
        self.replies = list(replies)
        self.prompts: list[str] = []

    def complete_json(self, *, system, messages, schema, name, max_tokens, meter, purpose):
        self.prompts.append(messages[0]["content"])
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply if isinstance(reply, str) else json.dumps(reply)


def model_critic(draft, chat):
    text, claims, evidence = draft
    rules = critic_rules(text, claims, evidence)
    return critic_model(text, claims, evidence, chat=chat, meter=UsageMeter(),
                        question="Who enforces the tree ordinance?", chunks=[], rules=rules), rules


def test_a_model_critics_edits_are_applied_when_they_add_nothing(draft):
    chat = FakeChat({"edits": [
        {"action": "delete", "sentence": 5, "reason": "not in the passage"},
        {"action": "shorten", "sentence": 3,
         "text": "The Planning Commission may levy fines and issue permits.", "reason": "tail"},
        {"action": "merge", "sentence": 4, "into": 2, "reason": "repeat"},
    ]})
    result, _ = model_critic(draft, chat)
    assert result.by == "model"
    assert [(e.action, e.sentence) for e in result.edits] == [("shorten", 3), ("merge", 4), ("delete", 5)]
    assert "1. [supported] The City Council confers" in chat.prompts[0]
    assert "5. [not_found] The City Arborist" in chat.prompts[0]
    text = draft[0]
    assert critic_check(text, result.text) == []
    assert "forty feet" not in result.text and "The following officials" in result.text
    # The shortened sentence keeps its own citation.
    assert "issue permits [cite:" in result.text


def test_a_model_edit_that_adds_words_is_rejected_for_the_rules(draft):
    chat = FakeChat({"edits": [{"action": "shorten", "sentence": 3, "text":
                                "The Planning Commission alone may levy fines.", "reason": "x"}]})
    result, rules = model_critic(draft, chat)
    assert (result.text, result.by) == (rules.text, "rules")
    assert result.note.startswith("Critic model's edits rejected (adds or reorders words")


def test_a_model_edit_of_a_sentence_that_does_not_exist_is_rejected(draft):
    result, rules = model_critic(draft, FakeChat({"edits": [{"action": "delete", "sentence": 42}]}))
    assert result.text == rules.text and "does not exist" in result.note


@pytest.mark.parametrize("replies", [
    (LLMError("model_timeout", "fake:critic did not answer in 60 s"),),
    ("{not json", "still not json"),
])
def test_a_failing_model_keeps_the_text_uncritiqued(draft, replies):
    result, _ = model_critic(draft, FakeChat(*replies))
    assert (result.text, result.edits, result.by) == (draft[0], [], "none")
    assert "kept as written" in result.note


def test_sentences_take_the_worst_verdict_of_their_claims(draft):
    text, claims, _ = draft
    sentences = critic_sentences(text, claims)
    assert [s.verdict for s in sentences] == [v.judgement.verdict for v in claims]
    assert all(text[s.start:s.end] == s.text and s.cited == tuple(dict.fromkeys(cited_ids(s.text)))
               for s in sentences)
    assert strip_citations(sentences[0].text) == sentences[0].plain
    assert isinstance(CriticResult(text), CriticResult)


# --- refinements found on corpus drafts ----------------------------------------------------

@pytest.fixture
def ors_837_070(demo_workspace) -> Chunk:
    return Chunk.objects.get(document__workspace=demo_workspace,
                             heading__startswith="837.070 Notice of sale of aircraft")


def test_a_fragment_merges_into_the_fuller_sentence_after_it(ors_837_070, authority):
    o, a = ors_837_070.chunk_id, authority.chunk_id
    fragment = ("Purchase, the purchaser shall file with the Oregon Department of Aviation an "
                "application to transfer the registration, stating the name and business address "
                "of the purchaser")
    text = (f"{fragment} [cite:{o}]. The regulations of this Ordinance are adopted under the "
            f"City's power to regulate to protect the public health, safety and welfare [cite:{a}]. "
            f"Within 10 days after the date of: {fragment} [cite:{a}, {o}].")
    claims = verified(text, [ors_837_070, authority])
    result = critic_rules(text, claims, {o: ors_837_070.text, a: authority.text})
    assert [(e.action, e.sentence, e.target) for e in result.edits] == [("merge", 1, 3)]
    assert result.text.startswith("The regulations of this Ordinance")
    assert result.text.endswith(f"Within 10 days after the date of: {fragment} [cite:{a}, {o}].")
    assert critic_check(text, result.text) == []


def test_a_cross_reference_below_is_no_dangling_list(ors_837_070):
    o = ors_837_070.chunk_id
    text = ("Title to the certificate of registration shall vest in the purchaser, as described "
            f"in subsection (2) below [cite:{o}].")
    result = critic_rules(text, verified(text, [ors_837_070]), {o: ors_837_070.text})
    assert not [e for e in result.edits if "dangling" in e.reason]


def test_a_weak_word_for_word_quotation_is_kept(ors_837_070, monkeypatch):
    o = ors_837_070.chunk_id
    quote = ("Upon the purchase of any aircraft registered in accordance with ORS 837.040, title to "
             "the certificate of registration assigned thereto shall vest in the purchaser")
    text = f"{quote} [cite:{o}]."
    claims = verified(text, [ors_837_070])
    weak = [type(v)(**{**v.__dict__, "judgement": type(v.judgement)(
        **{**v.judgement.__dict__, "verdict": "weak"})}) for v in claims]
    assert critic_rules(text, weak, {o: ors_837_070.text}).edits == []
    # The same sentence with words of its own is overreach.
    text = f"{quote} within 30 days [cite:{o}]."
    weak = [type(v)(**{**v.__dict__, "judgement": type(v.judgement)(
        **{**v.judgement.__dict__, "verdict": "weak"})}) for v in verified(text, [ors_837_070])]
    assert [e.action for e in critic_rules(text, weak, {o: ors_837_070.text}).edits] == ["delete"]
