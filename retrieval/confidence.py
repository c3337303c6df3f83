"""Retrieval confidence (DESIGN.md §1).

score = 0.5 × mean similarity + 0.3 × jurisdiction coverage + 0.2 × share of chunks
with a citation label. High if score > 0.8 and coverage = 1; Medium if score > 0.6;
else Low.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from retrieval.search import RetrievedChunk


@dataclass(frozen=True)
class RetrievalConfidence:
    """``score`` and its parts in [0, 1]; ``level`` High | Medium | Low; ``reason`` text."""

    score: float
    level: str
    mean_similarity: float
    jurisdiction_coverage: float
    covered: int
    targets: int
    cited_share: float
    reason: str

    def as_dict(self) -> dict:
        """JSON-ready copy (stored on the turn and sent in events)."""
        return asdict(self)


def retrieval_confidence(
    chunks: Sequence[RetrievedChunk], jurisdictions: Sequence[str]
) -> RetrievalConfidence:
    """Confidence in a turn's context.

    Jurisdiction coverage = share of target jurisdictions with at least one retrieved
    chunk of exactly that code; with no targets it is 1.0 if any chunk was found, else
    0.0. No chunks → mean similarity and cited share are 0, so the level is Low.
    """
    targets = list(dict.fromkeys(jurisdictions))
    n = len(chunks)
    mean_similarity = sum(c.similarity for c in chunks) / n if n else 0.0
    found = {c.jurisdiction for c in chunks}
    covered = sum(1 for t in targets if t in found)
    coverage = covered / len(targets) if targets else (1.0 if n else 0.0)
    cited_share = sum(1 for c in chunks if c.citation_label) / n if n else 0.0
    score = 0.5 * mean_similarity + 0.3 * coverage + 0.2 * cited_share
    if score > 0.8 and coverage == 1.0:
        level = "High"
    elif score > 0.6:
        level = "Medium"
    else:
        level = "Low"
    scope = (
        f"{covered}/{len(targets)} jurisdictions covered" if targets else "no target jurisdictions"
    )
    reason = (
        f"{level}: {scope}, avg similarity {mean_similarity:.2f}, "
        f"{cited_share:.0%} chunks have citations"
    )
    return RetrievalConfidence(
        score=round(score, 4), level=level, mean_similarity=round(mean_similarity, 4),
        jurisdiction_coverage=round(coverage, 4), covered=covered, targets=len(targets),
        cited_share=round(cited_share, 4), reason=reason,
    )
