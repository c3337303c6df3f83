"""Revision: fix the claims the Judge did not accept, from the evidence only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ciq.llm import Prompt
from sessions.prompts import CITE_RULE, numbered_context

PROMPT_VERSION = "1"


@dataclass(frozen=True)
class Finding:
    """One claim the Judge did not accept: its text, verdict, the Judge's reasoning and
    the best evidence snippet (may be empty)."""

    claim: str
    verdict: str
    reasoning: str
    snippet: str = ""


SYSTEM = f"""You revise a text written for a law firm so that every claim is supported.
For each listed claim:
- if a passage supports it, keep it and cite that passage;
- if it is only partly supported, soften it to what the passage says and cite it;
- if a passage contradicts it, correct it to what the passage says and cite it;
- otherwise remove it.
Never invent facts, names, numbers, dates or citations. Keep the other sentences, their
citations and the structure (headings, lists) unchanged. {CITE_RULE}
Return only the revised text."""


def build(*, question: str, text: str, findings: Sequence[Finding], chunks) -> Prompt:
    """The Revision prompt: the text, its unaccepted claims with verdicts, the evidence."""
    items = "\n".join(
        f"{i}. [{f.verdict}] {f.claim}\n   Judge: {f.reasoning}"
        + (f"\n   Best evidence: {f.snippet}" if f.snippet else "")
        for i, f in enumerate(findings, 1)
    )
    user = (f"Available evidence:\n\n{numbered_context(chunks)}\n\nQuestion or request: "
            f"{question}\n\nText to revise:\n{text}\n\nClaims not accepted:\n{items}")
    return Prompt("revision", PROMPT_VERSION, SYSTEM, user)
