"""Judge: one claim against numbered passages (DESIGN.md §1 Judge)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pydantic

from ciq.llm import Prompt

PROMPT_VERSION = "1"

SYSTEM = """You verify one claim from a legal answer against numbered passages.
verdict:
- supported: the passages state the claim (paraphrase is fine, every name, number, date,
  obligation and scope in the claim is in them);
- weak: the passages support only part of it, or only loosely;
- not_found: the passages do not address it;
- contradicted: a passage states something incompatible (another number, date, party,
  obligation or scope).
score: your support strength in [0, 1] (supported ≥ 0.75, weak 0.4–0.75, not_found < 0.4,
contradicted ≤ 0.3). supporting and contradicting: passage numbers. quote: the best
evidence, copied verbatim from one passage (at most 300 characters; "" if none).
reasoning: one or two sentences. Answer with one JSON object only."""
MODE_NOTE = {
    "strict": "Strict mode: judge only against these passages, which the claim cites.",
    "helpful": "Helpful mode: these are all passages retrieved for the question; any may "
               "support the claim.",
}


class JudgeOutput(pydantic.BaseModel):
    """The Judge's schema."""

    model_config = pydantic.ConfigDict(extra="forbid")

    verdict: Literal["supported", "weak", "not_found", "contradicted"]
    score: float
    supporting: list[int]
    contradicting: list[int]
    quote: str
    reasoning: str

    @pydantic.field_validator("score")
    @classmethod
    def _in_unit_interval(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError("score must be in [0, 1]")
        return value


def build(*, claim: str, passages: Sequence[str], mode: str) -> Prompt:
    """The Judge prompt for ``claim`` over ``passages`` (texts, numbered from 1 here)."""
    numbered = "\n\n".join(f"[{i}] {p.strip()}" for i, p in enumerate(passages, 1))
    user = f"{MODE_NOTE[mode]}\n\nPassages:\n\n{numbered}\n\nClaim: {claim}"
    return Prompt("judge", PROMPT_VERSION, SYSTEM, user)
