"""Markdown export: CommonMark with footnotes (``[^1]`` … ``[^1]: …``, as GitHub,
Pandoc and Python-Markdown read them) and a pipe table for each evidence ledger.

Document and user text is escaped, so a ``#``, ``*``, ``|``, ``[`` or ``<`` in a
question, a source or a quote stays text and never changes the structure.
"""

from __future__ import annotations

import re

from exports.document import Block, NoteRef, SessionDocument

_SPECIAL_RE = re.compile(r"([\\`*_\[\]<>#|~&!])")
_LINE_START_RE = re.compile(r"^(\s*)([-+=]|\d+[.)])")


def escape_inline(text: str) -> str:
    """``text`` as literal Markdown inside a line: whitespace runs made one space,
    inline specials backslash-escaped."""
    return _SPECIAL_RE.sub(r"\\\1", " ".join(text.split()))


def escape(text: str) -> str:
    """``text`` as literal Markdown at the start of a line: ``escape_inline`` and a
    leading list or heading-underline marker escaped too."""
    text = escape_inline(text)
    return _LINE_START_RE.sub(lambda m: m.group(1) + re.sub(r"([-+=.)])", r"\\\1", m.group(2)), text)


def _inline(block: Block) -> str:
    out: list[str] = []
    for part in block.inlines:
        if isinstance(part, NoteRef):
            out.append(f"[^{part.note.number}]")
            continue
        if part.code:
            core = f"`{part.text.strip().replace('`', '')}`"
        else:  # only the block's first run starts a line
            core = (escape_inline if out else escape)(part.text)
        if part.strong and core:
            core = f"**{core}**"
        if part.em and core:
            core = f"*{core}*"
        lead = " " if part.text[:1].isspace() else ""
        trail = " " if part.text[-1:].isspace() and core else ""
        out.append(lead + core + trail)
    return "".join(out).strip()


def _block(block: Block, depth: int = 3) -> str:
    if block.kind == "heading":
        # The answer sits under the turn's "### Answer": its outline depth 1 is "####"
        # (depths never skip, so neither do the levels; 6 is Markdown's deepest). A memo
        # that opens the file (``depth`` 0) keeps its own levels.
        return "#" * min(block.level + depth, 6) + " " + _inline(block)
    if block.kind == "item":
        return "    " * (block.level - 1) + f"{block.marker.replace('•', '-')} " + _inline(block)
    return _inline(block)


def _cell(text: str) -> str:
    return escape_inline(text) or " "


def render_markdown(doc: SessionDocument) -> bytes:
    """The session as UTF-8 Markdown. A Draft session's memos open the file (each turn's
    memo, separated by a rule); the record (title, metadata, per turn the question,
    outcome, confidence and ledger) follows them."""
    lines: list[str] = []
    if doc.memo_first:
        for n, turn in enumerate(doc.turns):
            lines += ["---", ""] if n else []
            lines += [line for block in turn.blocks for line in (_block(block, depth=0), "")]
        lines += ["---", ""]
    lines += [f"# {escape(doc.title)}", "", "| Field | Value |", "|---|---|"]
    lines += [f"| {_cell(k)} | {_cell(v)} |" for k, v in doc.metadata]
    for turn in doc.turns:
        lines += ["", f"## Question {turn.index}", ""]
        lines += [escape(turn.question), "", "### Answer" if not doc.memo_first else "### Result", ""]
        if turn.outcome:
            lines += [f"**Outcome:** {escape(turn.outcome)}", ""]
        if turn.error:
            lines += [f"**Error:** {escape(turn.error)}", ""]
        if doc.memo_first:
            lines += ["The memo is at the start of this file.", ""] if turn.blocks else []
        else:
            for block in turn.blocks:
                lines += [_block(block), ""]
        if turn.confidence:
            lines += ["### Confidence", ""] + [f"- {escape(c.lstrip('• '))}" for c in turn.confidence]
        lines += ["", "### Evidence ledger", ""]
        if turn.ledger:
            lines += ["| # | Claim | Verdict | Score | Confidence | Source |",
                      "|--:|---|---|--:|---|---|"]
            lines += [
                f"| {r.index} | {_cell(r.claim)} | {r.verdict_label} | {r.score:.2f} | "
                f"{r.confidence:.2f} ({r.level}) | {_cell(r.source)} |"
                for r in turn.ledger
            ]
        else:
            lines.append("No claims.")
    lines += ["", "---", ""]
    lines += [f"[^{n.number}]: {escape(n.reference)}. “{escape(n.snippet)}”" for n in doc.notes]
    lines += ["", f"Event-log hash (sha256): `{doc.log_hash}`", ""]
    return "\n".join(lines).encode("utf-8")
