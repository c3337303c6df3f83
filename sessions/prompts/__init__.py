"""The Writer's and Critic's prompts, one module per role, each with its ``PROMPT_VERSION``
(the Skeptic's and Judge's live beside their model backends, in ``verification/prompts/``).
Every module's ``build(...)`` returns a :class:`ciq.llm.Prompt`; the
version travels with each model call into the reasoning trace.

The context is always rendered by :func:`numbered_context`: passages numbered from 1,
each with the chunk id the model must cite as ``[cite:ID]``.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.search import RetrievedChunk

CITE_RULE = ("Cite every factual sentence with the id of the passage it comes from, written "
             "[cite:ID] before the sentence's final period (ID = the 12-character chunk id "
             "shown with the passage, never its number). Several sources: [cite:ID1, ID2].")


def passage_header(number: int, chunk: RetrievedChunk) -> str:
    """``[3] chunk 0123456789ab | 12 CFR 1006.2 — Regulation F | US, federal, STATE lane``."""
    source = " — ".join(p for p in (chunk.citation_label, chunk.document_title) if p)
    where = ", ".join(p for p in (chunk.jurisdiction, chunk.jurisdiction_level) if p)
    lane = f", {chunk.lane.upper()} lane" if chunk.lane else ""
    heading = f" | section: {chunk.heading}" if chunk.heading else ""
    return f"[{number}] chunk {chunk.chunk_id} | {source} | {where}{lane}{heading}"


def numbered_context(chunks: Sequence[RetrievedChunk]) -> str:
    """The passages, numbered from 1, each under its header (:func:`passage_header`)."""
    if not chunks:
        return "(no passages were found)"
    return "\n\n".join(f"{passage_header(i, c)}\n{c.text.strip()}" for i, c in enumerate(chunks, 1))


def memory_block(context: str) -> str:
    """The working-memory summary as a prompt section ('' when empty)."""
    return f"\n\nWorking memory (plan, earlier turns, gaps):\n{context}" if context else ""
