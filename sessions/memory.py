"""Working memory of a turn: sub-goals, gathered information and gaps (DESIGN.md §1).

The orchestrator fills it as the run goes; ``get_context()`` is what a model-backed
Writer receives, and ``snapshot()`` is saved on the turn.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

_SPLIT_RE = re.compile(r"\?\s+|;\s+|\n+|\s+and also\s+", re.IGNORECASE)


@dataclass
class WorkingMemory:
    """What the run knows: the question split into sub-goals, what was found, what is missing."""

    question: str
    jurisdictions: list[str] = field(default_factory=list)
    sub_goals: list[str] = field(default_factory=list)
    gathered: list[dict] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    previous_questions: list[str] = field(default_factory=list)
    # Earlier turns' answers, citations removed and shortened (aligned with the questions).
    previous_answers: list[str] = field(default_factory=list)
    # The question analysis (kind, facets, years) and where it points (places, parties):
    # retrieval.question and retrieval.places, issue 9.
    analysis: dict = field(default_factory=dict)
    routing: dict = field(default_factory=dict)

    def plan(self) -> list[str]:
        """Split the question into sub-goals: its sentences or clauses, plus one per target
        jurisdiction (authority must be found at each level asked for)."""
        parts = [p.strip(" ?.") for p in _SPLIT_RE.split(self.question) if len(p.split()) >= 3]
        self.sub_goals = [f"Answer: {p}" for p in parts[:4]] or [f"Answer: {self.question[:200]}"]
        self.sub_goals += [f"Find authority for {code}" for code in self.jurisdictions]
        return self.sub_goals

    def gather(self, *, chunk_id: str, title: str, note: str) -> None:
        """Record one piece of retrieved information."""
        self.gathered.append({"chunk_id": chunk_id, "title": title, "note": note[:200]})

    def gap(self, text: str) -> None:
        """Record something the sources did not answer (deduplicated)."""
        if text not in self.gaps:
            self.gaps.append(text)

    def get_context(self) -> str:
        """A plain-text summary for prompts: sub-goals, earlier questions with a summary of
        their answers, sources, gaps."""
        lines = ["Sub-goals:", *(f"- {g}" for g in self.sub_goals)]
        if self.analysis.get("facets"):
            lines.append("What the question asks (each facet must be answered or said to be missing):")
            lines += [f"- {f['text']} [{f['kind']}]" for f in self.analysis["facets"]]
        if self.previous_questions:
            lines.append("Earlier turns in this session:")
            for q, a in zip(self.previous_questions, self.previous_answers, strict=False):
                lines += [f"- Q: {q}", f"  A: {a}"]
            lines += [f"- Q: {q}" for q in self.previous_questions[len(self.previous_answers):]]
        if self.gathered:
            lines += ["Gathered:", *(f"- [{g['chunk_id']}] {g['title']}: {g['note']}" for g in self.gathered)]
        if self.gaps:
            lines += ["Gaps:", *(f"- {g}" for g in self.gaps)]
        return "\n".join(lines)

    def snapshot(self) -> dict:
        """JSON-serialisable copy for ``Turn.working_memory``."""
        return asdict(self)
