"""Skeptic: split an answer into atomic claims with type and span (DESIGN.md §1)."""

from __future__ import annotations

from typing import Literal

import pydantic

from ciq.llm import Prompt

PROMPT_VERSION = "1"
ClaimTypeName = Literal["factual", "numeric", "temporal", "comparative", "causal", "policy",
                        "opinion"]

SYSTEM = """You are a skeptical reviewer. Split the text into atomic claims: each states one
checkable thing. For each claim give:
- text: the claim as a standalone sentence, without citation markers;
- type: factual, numeric, temporal, comparative, causal, policy (obligations,
  permissions, prohibitions) or opinion;
- quote: the exact, verbatim span of the text the claim comes from, including its
  [cite:ID] markers when it has any (copy it character for character).
Headings, the sentence "I don't have information about that in the documents." and
"Not found in available sources." are not claims. Answer with one JSON object only."""


class ClaimOut(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    text: str
    type: ClaimTypeName
    quote: str


class ClaimsOutput(pydantic.BaseModel):
    """The Skeptic's schema: ``{"claims": [{"text", "type", "quote"}, ...]}``."""

    model_config = pydantic.ConfigDict(extra="forbid")

    claims: list[ClaimOut]


def build(*, text: str) -> Prompt:
    """The Skeptic prompt for ``text`` (the Writer's Markdown)."""
    return Prompt("skeptic", PROMPT_VERSION, SYSTEM, f"Text:\n\n{text}")
