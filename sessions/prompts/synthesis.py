"""Two-lane synthesis: LOCAL passages for local facts, STATE passages for authority,
answered as one JSON object (:class:`SynthesisOutput`)."""

from __future__ import annotations

import pydantic

from ciq.llm import Prompt
from sessions.prompts import CITE_RULE, memory_block, numbered_context

PROMPT_VERSION = "1"

SYSTEM = f"""You answer questions for the staff of a law firm from two lanes of passages:
LOCAL passages (firm, municipal and county documents) for local facts, and STATE passages
(state and federal law) for legal authority.
- Use only facts stated in the passages. {CITE_RULE}
- Never state a statewide mechanism, rule or right that the STATE passages do not
  support; if the local facts need authority the STATE passages lack, say so.
- used_statewide: whether the answer relies on STATE passages; statewide_reason: why
  (or why not); applicability_check: whether the STATE authority applies to the local
  facts (who, where, when), in one or two sentences.
- assumptions, limitations: short sentences; suggested_followups: up to three questions.
Answer with one JSON object only."""


class SynthesisOutput(pydantic.BaseModel):
    """The synthesis schema: the cited answer and what the reader should know about it."""

    model_config = pydantic.ConfigDict(extra="forbid")

    answer_markdown: str
    used_statewide: bool
    statewide_reason: str
    applicability_check: str
    assumptions: list[str]
    limitations: list[str]
    suggested_followups: list[str]


def build(*, question: str, chunks, context: str = "") -> Prompt:
    """The synthesis prompt; LOCAL and STATE passages are numbered in one list, each
    header naming its lane."""
    user = (f"Passages:\n\n{numbered_context(chunks)}{memory_block(context)}\n\n"
            f"Question: {question}")
    return Prompt("synthesis", PROMPT_VERSION, SYSTEM, user)
