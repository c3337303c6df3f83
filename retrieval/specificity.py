"""How much a question's terms tell apart the passages of the contracts it targets (issue 9).

A question that names a party ("When must John Coolidge return Vapotherm's confidential
materials?") is searched in that party's contract only (``retrieval.places``). A
contract is one transaction whose defined terms recur in every clause: inside a
non-disclosure agreement nearly every sentence says "Confidential Information": the
words that found the document tell its sentences nothing apart, yet they counted as much
as "return", so any sentence of the NDA with a time word looked like an answer (facet
coverage 0.59 without "return", ``retrieval.relevance``).

Within the targeted documents a term therefore weighs by how few of their passages
hold it:

    weight × clip(log(1 / share) / log(1 / CLAUSE_SHARE), TOPIC_WEIGHT_FLOOR, 1)

where ``share`` is the share of the passages holding the term. This is inverse document
frequency (Spärck Jones 1972) with the targeted documents as the collection, scaled so
that a term held by at most :data:`CLAUSE_SHARE` of the passages (one in twenty: it
picks out a clause) keeps its whole weight, and a term in every passage keeps
:data:`TOPIC_WEIGHT_FLOOR` of it. A term is held when every stem of one of its phrasings is in the passage.
Passages are the text cut at sentence punctuation and line breaks (:data:`PASSAGE_BREAK_RE`,
cheaper than pysbd; whether "Sec." ends a passage does not change which terms it holds).
Documents of fewer than :data:`MIN_PASSAGES` passages are too short to tell a topic
word from an asked one, and leave the weights as they are.

Only firm documents (jurisdiction ``private``) are weighed so. A codified text named by
its title ("RESPA", "Regulation E") is many rules, not one transaction: there the share
of "servicer" (28 % of 12 CFR Part 1024's passages) is a subject, not a defined term,
and lowering it turned two answered questions into declines (``user_questions_dev``
uq-056, ``user_questions_corpus`` oq-036).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from ciq.text import content_terms
from retrieval.jurisdiction import PRIVATE
from retrieval.models import Chunk, Document
from retrieval.question import QuestionAnalysis, Term

PASSAGE_BREAK_RE = re.compile(r"(?<=[.;:!?])\s+|\n+")
MIN_PASSAGES = 12
CLAUSE_SHARE = 0.05
# A term in every passage still tells a passage of the document from one that is not:
# it keeps a fifth of its weight rather than none.
TOPIC_WEIGHT_FLOOR = 0.2


@lru_cache(maxsize=128)
def _passages(document_pk: int, sha256: str) -> tuple[frozenset[str], ...]:
    # sha256 is part of the key: a re-ingested document with new text is read again.
    stems: list[frozenset[str]] = []
    texts = Chunk.objects.filter(document_id=document_pk).order_by("ordinal").values_list("text", flat=True)
    for text in texts:
        stems += [frozenset(content_terms(piece)) for piece in PASSAGE_BREAK_RE.split(text)]
    return tuple(s for s in stems if s)


def document_passages(document_pks: Sequence[int]) -> list[frozenset[str]]:
    """The content stems of every passage (sentence) of the firm documents among
    ``document_pks`` (module docstring), in document and text order; one query per
    document not read before (kept per process, keyed by the document's sha256). About
    0.4 ms per 1,000 characters."""
    rows = (Document.objects.filter(pk__in=list(document_pks), jurisdiction=PRIVATE)
            .values_list("pk", "sha256"))
    return [p for pk, sha in sorted(rows) for p in _passages(pk, sha)]


def held_share(alternatives: Sequence[Sequence[str]], passages: Sequence[frozenset[str]]) -> float:
    """Share in [0, 1] of ``passages`` that hold one of ``alternatives`` (stem tuples)
    whole; 0.0 for no passages."""
    if not passages:
        return 0.0
    held = sum(1 for p in passages if any(alt and all(s in p for s in alt) for alt in alternatives))
    return held / len(passages)


def specificity(alternatives: Sequence[Sequence[str]], passages: Sequence[frozenset[str]]) -> float:
    """The factor in [:data:`TOPIC_WEIGHT_FLOOR`, 1] a term's weight is multiplied by
    inside the targeted documents (module docstring); 1.0 with fewer than
    :data:`MIN_PASSAGES` passages."""
    if len(passages) < MIN_PASSAGES:
        return 1.0
    share = held_share(alternatives, passages)
    if share <= CLAUSE_SHARE:
        return 1.0
    return max(TOPIC_WEIGHT_FLOOR, math.log(1 / share) / math.log(1 / CLAUSE_SHARE))


def analysis_specific(analysis: QuestionAnalysis, passages: Sequence[frozenset[str]]) -> QuestionAnalysis:
    """A copy of ``analysis`` whose facet terms weigh by their :func:`specificity` in
    ``passages`` (the targeted documents', :func:`document_passages`); focus and key
    terms stay required as they are. ``analysis`` itself when nothing changes."""
    if len(passages) < MIN_PASSAGES:
        return analysis
    factors: dict[str, float] = {}

    def reweighed(term: Term) -> Term:
        if term.key not in factors:
            factors[term.key] = specificity(term.alternatives, passages)
        factor = factors[term.key]
        return term if factor == 1.0 else term.weighted(round(term.weight * factor, 4), told=term.told)

    facets = tuple(replace(f, terms=tuple(reweighed(t) for t in f.terms)) for f in analysis.facets)
    return replace(analysis, facets=facets) if facets != analysis.facets else analysis
