"""The plan of one search: the question's analysis and where it points (issue 9).

One function for the pipeline and ``evaluate retrieval``, so both read a question the
same way: route it (:func:`retrieval.places.question_route`), let a user's pick of
jurisdictions win, keep a follow-up that names no place where the conversation was,
analyse it (:func:`retrieval.question.question_analyse`), drop the names the search is
scoped to from its topic (inside a contract named by its parties also the party's
initials, the party written another way and the words for a contract) and, inside the
documents it names, weigh its terms by how much they tell those documents' passages
apart (:mod:`retrieval.specificity`); a one-word name the documents only mention in
passing becomes a key term (``Routing.mentioned``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ciq.models import Workspace
from ciq.text import content_terms
from retrieval.jurisdiction import PRIVATE
from retrieval.places import Routing, question_route
from retrieval.question import QuestionAnalysis, question_analyse
from retrieval.specificity import analysis_specific, document_passages

# A question that points at a firm document: "our NDA", "under the lease", "this
# engagement letter", "the Hosting Agreement" (a definite article or possessive, up to
# three words, a kind of agreement). "a $600 equipment rental agreement" asks about the
# law of such agreements, not about one of the firm's.
FIRM_REFERENCE_RE = re.compile(
    r"\b(?:our|the|this|that|these|those|their|its|his|her|my|your)\s+(?:[\w'’$.,-]+\s+){0,3}?"
    r"(?:agreements?|contracts?|ndas?|non-?disclosures?|leases?|licen[cs]es?|polic(?:y|ies)|handbooks?"
    r"|deals?|engagement letters?|addend(?:um|a)|amendments?|terms|sow|statements? of work"
    r"|purchase orders?|term sheets?|bylaws|pacts?|arrangements?)\b", re.I)


def question_plan(
    question: str, *, workspace: Workspace, jurisdictions: Sequence[str] = (), draft: bool = False,
    earlier_question: str = "", earlier_targets: Sequence[str] = (), routing: bool = True,
    analysis: bool = True,
) -> tuple[QuestionAnalysis | None, Routing]:
    """(analysis, routing) of ``question`` in ``workspace``.

    ``jurisdictions``: the user's targets, which replace the inferred ones (and any
    document focus). ``earlier_question`` / ``earlier_targets``: the previous turn's
    question and targets, for a follow-up. ``draft``: a Draft request names a topic, so
    its facets ask for no particular kind of fact. ``routing`` / ``analysis`` False switch
    a step off (``evaluate retrieval --no-routing/--no-rerank``): no names are resolved,
    or no analysis is returned (None). Never raises for odd text; one FTS5 query per
    capitalised name (bounded, see ``question_route``).
    """
    route = question_route(question, workspace=workspace) if routing else Routing()
    if jurisdictions:  # the user's pick wins over what the question names
        route.targets, route.documents = list(jurisdictions), []
    elif earlier_targets and not (route.targets or route.documents or route.mentions):
        route.targets = list(earlier_targets)  # a follow-up stays where the conversation was
    if not analysis:
        return None, route
    read = question_analyse(question, earlier=earlier_question)
    if route.documents:  # inside the named party's contract, its own topic words tell nothing apart
        passages = document_passages(route.documents)  # the firm documents' only
        known = named_otherwise(route.unknown, passages)
        route.unknown = [n for n in route.unknown if n not in known]
        # A one-word name public documents mention in passing that the named contract
        # itself uses ("EIT" beside "Silicon Smelters") is its other party: scope too.
        inside = named_otherwise(route.mentioned, passages)
        route.mentioned = [n for n in route.mentioned if n not in inside]
        route.names += known + inside + party_initials(question, route.parties)
        kinds = list(DOCUMENT_KINDS) if passages else []  # not for a named act ("Regulation E")
        read = analysis_specific(read.scoped(route.names + kinds), passages)
    else:
        read = read.scoped(route.names)
    read = read.keyed(route.mentioned)
    if not jurisdictions:  # a user's pick of jurisdictions says where answers may come from
        read = read.placed(route.local)
    read = read.firm_scoped(PRIVATE in jurisdictions if jurisdictions
                            else bool(route.parties) or bool(FIRM_REFERENCE_RE.search(question)))
    return (read.as_topic() if draft else read), route


# Inside the contract a question names by its parties, the words for a contract say which
# document, not what is asked ("Once the NDA ends …", "under their co-branding deal").
DOCUMENT_KINDS = ("NDA", "agreement", "contract", "deal", "pact", "arrangement")


def party_initials(question: str, parties: Sequence[str]) -> list[str]:
    """The capitalised tokens of ``question`` that are the initials of one of the routed
    ``parties`` ("IDR" after "International Direct Response", "ABP" for "Advanced
    BioPhotonics"): the party again, so scope, not topic."""
    initials = {"".join(w[0] for w in re.findall(r"[A-Za-z][\w&-]*", p) if w[0].isupper()).upper()
                for p in parties}
    found = re.findall(r"\b[A-Z][A-Z0-9]{1,5}\b", question)
    return [t for t in dict.fromkeys(found) if t in initials and len(t) >= 2]


def named_otherwise(names: Sequence[str], passages: Sequence[frozenset[str]]) -> list[str]:
    """The ``names`` (capitalised names of the question that no document holds as written,
    ``Routing.unknown``) whose last word the targeted documents' ``passages`` hold: a
    party written another way ("Roland Samples" where the agreement says "Roland W.
    Samples" and then "Samples"). Like the parties, they name the scope, not the topic."""
    held = frozenset().union(*passages) if passages else frozenset()
    return [n for n in names if (last := content_terms(n.split()[-1])) and set(last) <= held]
