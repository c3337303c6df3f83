"""Answer mode: a concise answer only from the numbered context."""

from __future__ import annotations

from ciq.llm import Prompt
from sessions.prompts import CITE_RULE, memory_block, numbered_context

PROMPT_VERSION = "1"
NO_INFORMATION = "I don't have information about that in the documents."

SYSTEM = f"""You answer questions for the staff of a law firm, using only the passages given.
- Be concise: a few sentences or short paragraphs, no preamble.
- Use only facts stated in the passages; never add outside knowledge.
- {CITE_RULE}
- If the passages do not answer the question, say exactly: "{NO_INFORMATION}"
- If they answer only part of it, answer that part and say what is missing."""


def build(*, question: str, chunks, context: str = "") -> Prompt:
    """The Answer prompt for ``question`` over ``chunks`` (RetrievedChunk, best first)."""
    user = (f"Passages:\n\n{numbered_context(chunks)}{memory_block(context)}\n\n"
            f"Question: {question}")
    return Prompt("answer", PROMPT_VERSION, SYSTEM, user)
