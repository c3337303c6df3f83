"""Compliance answers layered by jurisdiction (DESIGN.md §1 Writer), and the parser that
turns their "Required permits and licenses" list into structured data (``Turn.permits``)."""

from __future__ import annotations

import re

from ciq.llm import Prompt
from sessions.prompts import CITE_RULE, memory_block, numbered_context
from sessions.writer import PERMITS_HEADING
from verification.citations import cited_ids, strip_citations

PROMPT_VERSION = "1"
PERMIT_LINE = ("- **<permit name>** | Issuing agency: <agency> | Jurisdiction: <code> | "
               "Link: <URL or none> | Reference: <section or regulation> [cite:ID]")
_FIELDS = {"issuing agency": "agency", "agency": "agency", "jurisdiction": "jurisdiction",
           "link": "link", "reference": "reference", "regulatory reference": "reference"}

SYSTEM = f"""You answer compliance questions for the staff of a law firm, using only the
passages given, layered by jurisdiction.
- Use "## Federal", "## State", "## County" and "## Municipal" sections, in that order,
  each only when passages of that level say something relevant; never fill a level
  from general knowledge.
- {CITE_RULE}
- When the passages name permits, licences or approvals that are required, end with
  "## {PERMITS_HEADING}", one line per item, exactly:
  {PERMIT_LINE}
  Write "unknown" for a field the passages do not give.
- If the passages do not answer the question, say: "I don't have information about that in the documents." """


def build(*, question: str, chunks, jurisdictions, context: str = "") -> Prompt:
    """The compliance prompt for ``question`` with target ``jurisdictions``."""
    user = (f"Target jurisdictions: {', '.join(jurisdictions)}\n\nPassages:\n\n"
            f"{numbered_context(chunks)}{memory_block(context)}\n\nQuestion: {question}")
    return Prompt("compliance", PROMPT_VERSION, SYSTEM, user)


def permits_parse(text: str) -> list[dict]:
    """The items of the answer's "Required permits and licenses" section.

    Returns ``[{"name", "agency", "jurisdiction", "link", "reference", "chunk_ids"}]``;
    fields the line does not give (or gives as "unknown"/"none") are "". A plain list
    item (the extractive Writer's quoted sentence) becomes its ``name``.
    """
    match = re.search(rf"^#+\s*{re.escape(PERMITS_HEADING)}\s*$(.*?)(?=^#|\Z)", text, re.M | re.S)
    if not match:
        return []
    items = []
    for line in match.group(1).splitlines():
        if not re.match(r"\s*[-*+]\s+", line):
            continue
        ids = cited_ids(line)
        parts = [p.strip() for p in strip_citations(re.sub(r"^\s*[-*+]\s+", "", line)).split("|")]
        item = {"name": parts[0].strip("* ").rstrip("."), "agency": "", "jurisdiction": "",
                "link": "", "reference": "", "chunk_ids": ids}
        for part in parts[1:]:
            key, _, value = part.partition(":")
            field = _FIELDS.get(key.strip().lower())
            value = value.strip().rstrip(".")
            if field and value.lower() not in ("unknown", "none", "n/a"):
                item[field] = value
        items.append(item)
    return items
