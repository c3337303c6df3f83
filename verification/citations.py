"""Citation markers: ``[cite:CHUNK_ID]`` with CHUNK_ID = 12 hex characters (DESIGN.md §1).

One marker may hold several ids (``[cite:0123456789ab, 0123456789ac]``), as model
Writers sometimes write them. Every part of CIQ that finds, counts, numbers or removes
citations uses these functions, so they all agree on what a citation is.
"""

from __future__ import annotations

import re

CITE_RE = re.compile(r"\[cite:\s*([0-9a-fA-F]{12}(?:\s*[,;]\s*[0-9a-fA-F]{12})*)\s*\]")
CITE_ID_RE = re.compile(r"[0-9a-fA-F]{12}")


def cited_ids(text: str) -> list[str]:
    """Every cited chunk id in ``text``, lowercased, in order, repeats kept."""
    return [i.lower() for m in CITE_RE.finditer(text) for i in CITE_ID_RE.findall(m.group(1))]


def citation_numbers(text: str) -> dict[str, int]:
    """Chunk id → footnote number (1, 2, …) in order of first citation in ``text``."""
    numbers: dict[str, int] = {}
    for chunk_id in cited_ids(text):
        numbers.setdefault(chunk_id, len(numbers) + 1)
    return numbers


def number_citations(text: str) -> str:
    """``text`` with each marker replaced by its footnote numbers: ``[1]`` or ``[1, 2]``."""
    numbers = citation_numbers(text)
    return CITE_RE.sub(
        lambda m: "[" + ", ".join(str(numbers[i.lower()]) for i in CITE_ID_RE.findall(m.group(1)))
        + "]",
        text,
    )


def strip_citations(text: str) -> str:
    """``text`` without its markers (and without the space left before punctuation)."""
    return re.sub(r"\s+([.;:!?])", r"\1", CITE_RE.sub("", text)).strip()
