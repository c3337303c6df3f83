"""Draft mode: a legal memorandum with every claim cited (issue 13).

The model writes the same memo as the embedded Writer (``sessions.memo``): CIQ gives it the
header block to copy (To / From / Date / Re, with placeholders the user edits before
export), and the sections in order. The Skeptic treats the header and the Question
Presented, Open questions and Sources sections as template, never as claims
(``verification.skeptic.template_masked``), so they must carry no citation.
"""

from __future__ import annotations

import datetime as dt

from ciq.llm import Prompt
from sessions.prompts import CITE_RULE, memory_block, numbered_context

PROMPT_VERSION = "2"

SYSTEM = f"""You draft legal memoranda for the staff of a law firm, using only the passages given.
Write Markdown in exactly this structure:
1. The header block given in the request, copied as it is (do not fill the placeholders).
2. "## Question Presented": the request restated as one or more numbered questions, one
   per issue it raises. No citations.
3. "## Short Answer": two to four sentences that answer the questions, leading with the
   asked facts (an amount, a deadline, whether a permit is required, who must act), each
   sentence cited.
4. "## Discussion": one "### " subsection per issue; inside an issue, "#### Federal",
   "#### State", "#### County", "#### Municipal", "#### Firm documents" in that order,
   only for the levels the passages cover. When two documents of the same town or county
   speak to the same point (an ordinance and its amendment, two fee schedules), state
   the newer one first and add a line "Superseded: <older document>, amended by <newer
   document>." (no citation on that line).
5. "## Requirements and permits": one list item per permit, licence, notice or filing the
   passages require, written "- **<Permit|License|Notice|Filing>** (issued by <authority>):
   <the requirement> [cite:ID]". Only real requirements; none → "Not found in available
   sources: no permit, licence, notice or filing requirement."
6. "## Open questions": what the request asks that the passages do not settle, as a list.
   No citations.
7. "## Sources": the sources you cited, one per line, with section numbers. No citations.
Rules:
- Every factual sentence in the Short Answer, the Discussion and the Requirements carries
  a citation. {CITE_RULE}
- Use only facts stated in the passages; never add outside knowledge or invent names,
  numbers, dates or requirements. Never use a passage of a place the request does not
  ask about."""


def build(*, question: str, chunks, context: str = "", author: str = "",
          today: dt.date | None = None) -> Prompt:
    """The Draft prompt for the request ``question`` over ``chunks``; the header block
    (``sessions.memo.memo_header``: ``author`` for From, ``today`` for Date) is given to copy."""
    from sessions.memo import memo_header  # the memo builds on the Writer, which prompts import

    header = memo_header(question, author=author, today=today)
    user = (f"Passages:\n\n{numbered_context(chunks)}{memory_block(context)}\n\n"
            f"Header block:\n\n{header}\n\nDraft request: {question}")
    return Prompt("draft", PROMPT_VERSION, SYSTEM, user)
