"""Draft mode: a document (memo, summary, checklist) with every claim cited."""

from __future__ import annotations

from sessions.prompts import CITE_RULE, Prompt, memory_block, numbered_context

PROMPT_VERSION = "1"

SYSTEM = f"""You draft documents for the staff of a law firm, using only the passages given.
- Start with a "# " title, then "## " sections with headings that fit the request.
- Every factual claim carries a citation. {CITE_RULE}
- Use only facts stated in the passages; never add outside knowledge or invent names,
  numbers, dates or requirements.
- End with a "## Gaps" section listing what the request asks for that the passages do not
  cover (no citations there)."""


def build(*, question: str, chunks, context: str = "") -> Prompt:
    """The Draft prompt for the request ``question`` over ``chunks``."""
    user = (f"Passages:\n\n{numbered_context(chunks)}{memory_block(context)}\n\n"
            f"Draft request: {question}")
    return Prompt("draft", PROMPT_VERSION, SYSTEM, user)
