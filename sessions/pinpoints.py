"""Pinpoints of what a turn cites: the section each cited sentence sits in (issue 13).

A chunk may pack several short sections (a charter's §§ 39–41, three ORS sections); it is
named by the first (``Chunk.heading``), so citing it by that name would send a lawyer to
§ 39 for a sentence of § 41. When the turn is finished, each cited source's pinpoint is
narrowed to the sections of the sentences the answer quotes from it
(:meth:`retrieval.search.RetrievedChunk.cited_pinpoint`): a claim is found in its chunk
by its own words (an extractive Writer quotes verbatim) or, for a paraphrase, by the
evidence the Judge found for it there.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.pinpoint import sentence_offset
from retrieval.search import RetrievedChunk
from verification.citations import CITE_ID_RE, CITE_RE
from verification.services import VerifiedClaim


def quoted_sentences(text: str) -> dict[str, list[str]]:
    """Chunk id → the sentences of ``text`` (Markdown with ``[cite:…]`` markers) that
    cite it: for each marker, the text since the previous marker or line break."""
    quoted: dict[str, list[str]] = {}
    start = 0
    for m in CITE_RE.finditer(text):
        sentence = text[start:m.start()].rsplit("\n", 1)[-1].strip(" .;:")
        start = m.end()
        for chunk_id in CITE_ID_RE.findall(m.group(1)):
            if sentence:
                quoted.setdefault(chunk_id.lower(), []).append(sentence)
    return quoted


def cited_sentences(verified: Sequence[VerifiedClaim],
                    chunks: dict[str, RetrievedChunk]) -> dict[str, list[str]]:
    """Chunk id → the sentences the claims quote from it, one per claim that cites it:
    the claim's text when the chunk holds it, else the Judge's evidence snippet when it
    was found in that chunk; a claim found neither way is left out."""
    quoted: dict[str, list[str]] = {}
    for v in verified:
        for chunk_id in v.draft.cited_chunk_ids:
            chunk = chunks.get(chunk_id)
            if chunk is None:
                continue
            if sentence_offset(chunk.text, v.draft.text) is not None:
                quoted.setdefault(chunk_id, []).append(v.draft.text)
            elif v.judgement.evidence_chunk_id == chunk_id and v.judgement.snippet:
                quoted.setdefault(chunk_id, []).append(v.judgement.snippet.lstrip("…"))
    return quoted


def sources_pinpointed(sources: Sequence[dict], chunks: Sequence[RetrievedChunk],
                       verified: Sequence[VerifiedClaim]) -> list[dict]:
    """``sources`` (``Turn.sources`` snapshots) with the ``pinpoint`` of each cited chunk
    narrowed to the sections its quoted sentences sit in (module docstring); the other
    snapshots are returned as they are. New dicts; the input is not changed."""
    by_id = {c.chunk_id: c for c in chunks}
    quoted = cited_sentences(verified, by_id)
    return [{**s, "pinpoint": by_id[s["chunk_id"]].cited_pinpoint(quoted[s["chunk_id"]])}
            if s["chunk_id"] in quoted and s["chunk_id"] in by_id else s for s in sources]
