"""Relevance of claims and answer coverage (DESIGN.md §1 "answerability"; issue 9).

A claim is judged, besides its support, for relevance to the question's facets, read
beside its evidence (:func:`claim_relevance`, with the sentence formula of
:mod:`retrieval.relevance`). **Answer coverage** = facets addressed by supported claims /
facets; the outcome of a turn follows from it (:func:`outcome_for`): answered (1),
partially answered (> 0), not answered (0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from retrieval.meaning import relevance_by_meaning
from retrieval.question import QuestionAnalysis
from retrieval.relevance import Relevance, sentence_relevance
from verification.models import Outcome

__all__ = ["Relevance", "answer_coverage", "claim_relevance", "outcome_for"]

NEIGHBOURHOOD_CHARS = 300  # text around a claim's evidence read as its context


def claim_relevance(analysis: QuestionAnalysis, claim: str, *, evidence_text: str = "",
                    snippet: str = "", context: str = "",
                    idf: Mapping[str, float] | None = None, elsewhere: bool = False) -> Relevance:
    """The :class:`Relevance` of a claim: the claim read with ``context`` (its evidence
    chunk's title and heading) and the :data:`NEIGHBOURHOOD_CHARS` around its evidence in
    ``evidence_text`` (located by ``snippet``, else by the claim's opening words): the
    same reading the extractive Writer gives a sentence beside its neighbours. The first
    line of ``context`` is the document's title; a key term of the question may stand in
    ``context`` (title and heading), never in the neighbourhood only. With the ``minilm``
    extra a claim that only lacks coverage is read by meaning, as the Writer reads it
    (:func:`retrieval.meaning.relevance_by_meaning`). ``elsewhere``: the evidence lies
    outside the question's scope (``retrieval.relevance.out_of_place``) and addresses
    nothing."""
    around = ""
    probe = " ".join((snippet or claim).replace("…", " ").split()[:8])
    flat = " ".join(evidence_text.split())
    at = flat.lower().find(probe.lower()) if probe else -1
    if at >= 0:
        around = flat[max(0, at - NEIGHBOURHOOD_CHARS):at + len(probe) + NEIGHBOURHOOD_CHARS]
    return sentence_relevance(analysis, claim, context=f"{context}\n{around}", idf=idf,
                              title=context.split("\n", 1)[0], scope=context, elsewhere=elsewhere,
                              meaning=relevance_by_meaning())


def answer_coverage(analysis: QuestionAnalysis, addressed_by_supported: Sequence[Sequence[int]]) -> float:
    """Facets addressed by at least one supported claim / facets, in [0, 1]
    (``addressed_by_supported``: the facet indices each supported claim addresses)."""
    if not analysis.facets:
        return 0.0
    done = {i for facets in addressed_by_supported for i in facets}
    return len(done) / len(analysis.facets)


def outcome_for(coverage: float) -> str:
    """The turn outcome (:class:`verification.models.Outcome` value) of an answer coverage:
    answered at 1, partial above 0, not_answered at 0."""
    if coverage >= 1.0:
        return Outcome.ANSWERED.value
    return (Outcome.PARTIAL if coverage > 0 else Outcome.NOT_ANSWERED).value
