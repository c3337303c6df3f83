"""Critic (seed 003): tighten a verified draft by deleting, shortening, merging or moving
its numbered claim sentences; never by writing new text.

The model answers edits, not a rewritten text, so CIQ applies them itself
(``sessions.critic.edits_apply``) and checks the result with
``sessions.critic.critic_check``: an edit whose text adds a word the sentence did not
have is rejected and the rule-based Critic's result is used instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pydantic

from ciq.llm import Prompt
from sessions.prompts import numbered_context

PROMPT_VERSION = "1"

SYSTEM = """You are the Critic of a law firm's drafting tool. The draft's claims were
checked against the cited passages; each numbered sentence shows the Judge's verdict.
Tighten the draft with these edits only:
- "delete" a sentence that claims more than its passages support (verdict weak,
  not_found or contradicted, or a statement the passages do not make), or that announces
  a list ("the following …:") the draft does not give;
- "shorten" a sentence to a run of its own consecutive words when only its end goes
  beyond the passage (put the shortened sentence in "text", same words, same order,
  nothing added; never cut off a condition such as "unless", "except", "if", "only");
- "merge" a sentence that repeats an earlier one into it ("into": the earlier sentence's
  number; CIQ keeps the earlier sentence with both sentences' citations);
- "move" a sentence that introduces a list so it comes right before that list ("before":
  the number of the sentence it should precede, or null to move it to the end of its
  paragraph).
Never add a word, a fact or a citation. Leave supported, non-repeated sentences alone.
An empty list of edits is a good answer for a tight draft. Answer with JSON only."""


class CriticEditOut(pydantic.BaseModel):
    """One edit the model proposes."""

    action: Literal["delete", "shorten", "merge", "move"]
    sentence: int = pydantic.Field(description="Number of the sentence edited.")
    text: str = pydantic.Field(default="", description="shorten: the shortened sentence.")
    into: int | None = pydantic.Field(default=None, description="merge: the earlier sentence.")
    before: int | None = pydantic.Field(default=None, description="move: sentence to precede.")
    reason: str = ""


class CriticOutput(pydantic.BaseModel):
    """The model's answer: the edits, possibly none."""

    edits: list[CriticEditOut] = pydantic.Field(default_factory=list)


def build(*, question: str, text: str, sentences: Sequence, chunks) -> Prompt:
    """The Critic prompt: the passages, the request, the draft, and its claim sentences
    numbered from 1 with their verdicts (``sentences``: ``sessions.critic.CriticSentence``)."""
    numbered = "\n".join(f"{s.number}. [{s.verdict or 'no claim'}] {s.text.strip()}"
                         for s in sentences)
    user = (f"Passages:\n\n{numbered_context(chunks)}\n\nDraft request: {question}\n\n"
            f"Draft:\n{text}\n\nClaim sentences (number. [verdict] sentence):\n{numbered}\n\n"
            'Answer {"edits": [{"action", "sentence", "text", "into", "before", "reason"}]}.')
    return Prompt("critic", PROMPT_VERSION, SYSTEM, user)
