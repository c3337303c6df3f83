"""Relevance of a sentence to the question's facets (DESIGN.md §1 "answerability"; issue 9).

Support says a claim is true of its evidence; relevance says it answers what was asked.
A sentence **addresses** a facet of the question (:mod:`retrieval.question`) when

1. it holds a value of the kind the facet asks for (:func:`slot_present`: a period for a
   deadline question, an amount for an amount question, a modal for a permission or an
   obligation question, …), and
2. its **facet coverage** reaches :data:`ADDRESS_MIN`: the IDF-weighted share of the
   facet's topic terms that the sentence holds (any phrasing from the lexicon counts),
   terms found only in the sentence's context (its neighbours, the section heading, the
   document title) counting :data:`CONTEXT_CREDIT`, and
3. it holds the facet's focus (the "insurance" of "What insurance must …") itself; for an
   obligation, permission, procedure or definition facet that names its focus ("What
   permits are needed …") the focus stands in for the slot, and
4. it holds at least one of the facet's own topic terms itself (a year aside): context
   completes a sentence, never stands in for it, and
5. it holds every **key term** of the facet (the modifiers that say which permit, fee or
   service is asked about, ``Facet.keys``), itself or in its ``scope`` (the section
   heading and document title, which name the schedule or the list a row belongs to):
   "Building Permit (City Fee): $25" holds every word of "What's the city fee for a sign
   permit?" but the one that says which permit, so it is related, not an answer. A key
   the documents never use is still required: a near miss stays a near miss. The act a
   permission question asks about, or a deadline gives time for (``Facet.action``:
   "tow" of "Can the city tow a car parked on the street …?", "finish" of "how many days
   does a district get to finish …?"), is required the same way: a sentence on street parking says
   nothing of towing.

6. when the facet points back at the situation told before the question ("keep
   paperwork on *those* purchases", ``Facet.refers_back``), it holds a term of that
   situation, itself or in its context: the Legislature's reporting duty is no answer
   about a cedar mill's purchase records.

7. it does not name what the question asks about only to set it aside: "institutions
   shall disclose … for time accounts that do not renew automatically" is about other
   accounts than a CD that "automatically rolls over" (:func:`negated_only`; unless the
   question negates the same words).

8. A sentence that defines the term a clause asks the meaning of ("what counts as
   'residuals' that either side can use freely?" and "The term "Residuals" means any
   information retained in the unaided memories …", ``Facet.defines``,
   :func:`retrieval.definitions.defines`) covers the clause and holds its own term: the
   rest of the clause describes the term in the asker's words. Keys, years and places
   are still required.

**By meaning** (with the ``minilm`` extra, :func:`retrieval.meaning.relevance_by_meaning`).
Firm staff ask "can we get out of the NDA" where the contract says "either party may
terminate"; the lexicon cannot list every such pair. A sentence that passes every test
above but coverage (and its own term, 4) is read again with the question's missing words
matched by meaning (:func:`meaning_coverage`, :data:`MEANING_MATCH`); when that coverage
reaches :data:`ADDRESS_MIN` and the sentence holds one of the facet's own terms, in its
words or by meaning, it addresses the facet *by meaning* (``Relevance.by_meaning``) and
scores :data:`MEANING_SCORE`, so its claim confidence stays below Medium: CIQ may answer
with it, but does not vouch for it as it does for a sentence whose words show the answer.

**Untyped facets.** Test 1 is what makes a sentence state the asked fact rather than
talk about the asked thing; a facet whose kind the reading could not tell (general:
"Am I forced to connect?", "What's the monthly sewer bill?" before their cues were known)
has no slot to check, so any sentence on its topic passes. Such a facet addressed by a
sentence's words is ``Relevance.untyped``, and a claim's confidence rests on
:data:`MEANING_SCORE` of it (``Relevance.vouched``), as for a reading by meaning: the
answer is given, never vouched for; the sentence still ranks as one that addresses the
facet. On the sixteen question sets at the start of the
tenth round, a High answer to a general facet was right 11 times in 25, to a facet of a
known kind 104 times in 122. A Draft request's topics are general by design
(``QuestionAnalysis.drafting``) and are not capped.

The retriever reranks by it (``retrieval.search.answer_signal``, by words only: reading
forty candidates by meaning cost more than it found), the extractive Writer picks its
sentences by it, and the verifier judges every claim by it (``verification.relevance``):
one formula for all three.

Why these numbers: a facet is a short clause, usually two to five topic terms once the
question's scaffolding is gone; half its weight is "the sentence is about this", and
context at half credit lets "Such bonds shall never exceed 10 percent" answer a question
about an airport district's debt when the section heading names the district. Both are
round values chosen by reasoning, not fitted to a dev set; ``evaluate answers`` reports
how they do on questions they were not tuned on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ciq.text import TOKEN_RE, content_terms, stem
from retrieval.definitions import defines
from retrieval.jurisdiction import PRIVATE
from retrieval.measures import CENTS, CURRENCY, HEIGHT_RE, SIZE, VALUE_NUMBER, measure_present
from retrieval.question import SITUATION_WEIGHT, Facet, FactKind, QuestionAnalysis, Term
from retrieval.seasons import asked_months, in_season, season_fits

ADDRESS_MIN = 0.5
CONTEXT_CREDIT = 0.5
# A question word counts as said by a sentence in other words when its contextual vector
# meets a word piece of the sentence at this cosine (retrieval.meaning). 0.5 lies just above
# the 99th percentile (0.48) of a question word's best similarity to an unrelated corpus
# sentence (8,793 word-sentence pairs: the questions of two of our own question sets
# against 300 random sentences of ciq_legal_v1): fewer than one unrelated sentence in a
# hundred lends a word. (The Judge's 0.4 weighs a claim against its own evidence.)
MEANING_MATCH = 0.5
# The relevance of a sentence that addresses facets by meaning only, or only facets of no
# known kind (``Relevance.untyped``): below the Medium bar
# of claim confidence (0.70, README "How the numbers are computed"), so such an answer is
# at most Low; above Low's 0.50, so a supported one is not Very low.
MEANING_SCORE = 0.65
# A term the index has never seen (an everyday word no document uses) weighs no more
# than the facet's best-known term: it cannot make every passage look off-topic.
UNSEEN_WEIGHT_CAP = 1.0
# Support verbs, the verbs of light-verb constructions: "give notice", "bring a claim",
# "put up a sign", "set a hearing" say little beyond their noun, which carries the
# meaning. Used as verbs they weigh at most SUPPORT_VERB_SHARE of the question's
# weightiest noun (half, by the same reasoning as ADDRESS_MIN; not fitted to a question
# set). ("get", "take", "make", "have" and "do" are question scaffolding already.)
SUPPORT_VERBS = frozenset(stem(w) for w in """give gives gave given giving bring brings brought bringing
    put puts putting set sets setting""".split())
SUPPORT_VERB_SHARE = 0.5

# Nouns for people a rule counts ("5 residents", "seven members", "two jurors").
_PERSON_NOUNS = (r"persons?|people|individuals?|members?|residents?|citizens?|electors?|voters?|employees?"
                 r"|jurors?|witnesses|directors?|commissioners?|trustees?|officers?|representatives?|delegates?"
                 r"|appointees?|adults?|children|occupants?|owners?|judges?|justices?")
_UNIT_TIME = (r"(?:business |calendar |school |working |consecutive )?"
              r"(?:days?|weeks?|months?|years?|hours?|minutes?)")
# "A six-month account", "a one-year CD", "a 30-year mortgage": the term of an account or a
# security, not a period a rule sets; nor is an age ("three years of age", "a 16-year-old").
_NOT_AGE_OR_TERM = (r"(?![\s-]+(?:of age|old|(?:time\s+)?(?:accounts?|CDs?|certificates?|deposits?|notes?"
                    r"|bonds?|mortgages?|treasur\w*))\b)")
SLOT_PATTERNS: dict[str, re.Pattern] = {
    FactKind.DEADLINE: re.compile(
        rf"\b{VALUE_NUMBER}(?:\s*\(\d+\))?[\s-]+{_UNIT_TIME}\b{_NOT_AGE_OR_TERM}|\b(?:annual(?:ly)?|monthly|weekly|daily|yearly"
        r"|quarterly|biennial(?:ly)?|immediately|promptly|forthwith)\b|\b\d{1,2}(?::\d\d)?\s*(?:a\.?m\.?|p\.?m\.?)"
        # How often: "at least once each month", "twice a year", "every two weeks".
        # ("every day that a violation continues" is a penalty's count, not a frequency)
        rf"|\b(?:once|twice|{VALUE_NUMBER} times) (?:a|an|each|every|per|in any) (?:\w+ )?"
        r"(?:day|week|month|year|quarter)\b"
        r"|\bevery (?:\w+ )?(?:days?|weeks?|months?|years?|quarters?)\b(?! (?:that|during|on which|in which))"
        r"|\b(?:midnight|noon|dusk|dawn|sunset|sunrise)\b|\b(?:no later than|not later than|prior to"
        r"|within|before|until|by) (?:the )?(?:\w+ ){0,3}(?:date|day|meeting|hearing|closing|expiration)\b"
        r"|\b(?:January|February|March|April|May|June|July|August|September|October|November"
        r"|December) \d{1,2}\b|\b(?:first|second|third|fourth|last) (?:Monday|Tuesday|Wednesday"
        r"|Thursday|Friday|Saturday|Sunday)\b", re.I),
    FactKind.AMOUNT: re.compile(
        rf"\$\s?\d|\b\d[\d,.]*\s*(?:%|percent|per cent)|\b{VALUE_NUMBER}[\s-]+(?:percent|per cent|dollars?"
        r"|feet|foot|inches|inch|acres?|square feet|sq\.? ?ft|miles?|yards?|meters?|units?|times"
        r"|persons|people|employees|signatures|electors|voters|lots|stories|storeys|vehicles|animals"
        r"|horses|dwellings)\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten)-(?:half|third"
        r"|fourth|fifth|sixth|seventh|eighth|tenth|twelfth)s?\b|\b\d+/\d+\b|\b(?:treble|triple|double)\b"
        r"|\b\d[\d,]*(?:\.\d+)?\s*(?:million|billion|thousand)\b|\b(?:no|any) (?:fee|charge|cost)\b"
        rf"|\b{VALUE_NUMBER}[\s-]+(?:million|billion|thousand)\b|{CURRENCY}|{CENTS}"
        # A count of things, two describing words apart at most ("2 covered, enclosed spaces").
        rf"|\b(?!an?\b){VALUE_NUMBER}(?:\s*\(\d+\))?(?:\s+[a-z-]+,?){{0,2}}[\s-]+(?:spaces|spots|stalls|seats|beds|bedrooms|rooms|trees"
        r"|signs|parcels|copies|stories|buildings|structures|accessory dwellings?|challenges|votes"
        rf"|{_PERSON_NOUNS})\b"
        # A bound on a bare number is a threshold, whatever it counts ("at least 10,000
        # aggregate annual originations"); a bound on a period of time is a deadline's.
        r"|\b(?:at least|(?:no |not )?(?:more|less|fewer) than|exceeds?|exceeding|up to"
        r"|a (?:minimum|maximum) of)"
        rf"\s+\d[\d,]*(?:\.\d+)?\b(?!\s*(?:\(\d+\)\s*)?[\s-]*{_UNIT_TIME}\b)", re.I),
    FactKind.PERMISSION: re.compile(
        r"\b(?:may|may not|shall not|must not|cannot|can|prohibited|permitted|allowed|not allowed|unlawful"
        r"|lawful|authori[sz]ed|entitled|exempt|need not|is not required|no person shall|forbidden"
        r"|restricted|only if|unless|except|commits? (?:the |an? )?(?:crime|offense|offence)|is guilty of"
        # ("is free to dispose of"; "is free to residents" is a price)
        r"|(?:is|are|be|remains?) free to(?! (?:the|all|any|residents?|members?|public|everyone|anyone)\b)"
        r"|at (?:its|his|her|their) (?:sole )?(?:option|discretion))\b"
        # "No fence shall be …", "The county does not accept …", "is not complete until …":
        # a prohibition of the thing, an authority's refusal, a condition.
        # (the thing may take a dozen words: "No kennel or outdoor boarding facility for more
        # than 3 dogs or 6 cats shall be located within 300 feet …")
        r"|\bno (?:[\w-]+,? ){1,14}?shall\b"
        r"|\b(?:does|do|will|shall) not (?:accept|allow|consider|entertain)\b"
        r"|\bnot (?:be )?accepted\b|\b(?:is|are|be) not (?:\w+ ){1,2}?until\b",
        re.I),
    FactKind.OBLIGATION: re.compile(
        r"\b(?:shall|must|required|requires?|is responsible|responsible for|obligat\w+|duty|need not"
        r"|not required|exempt|agrees? to|will (?:pay|provide|maintain|carry|deliver|give))\b", re.I),
    FactKind.DEFINITION: re.compile(
        r"\b(?:means|mean|shall mean|is defined|defined as|refers? to|includes?|including|consists? of"
        r"|is an?|are|as used in|for purposes of|shall be)\b", re.I),
    FactKind.PROCEDURE: re.compile(
        r"\b(?:shall|must|may) (?:have the right to |be entitled to )?(?:\w+ ){0,3}(?:file|submit|apply"
        r"|petition|request|notify|send|deliver|serve|present|obtain|give|provide|mail|appeal|record|post"
        # "the sheriff shall publish a notice of the sale …": making a thing public is a step
        r"|issue|refer|publish|advertise|announce|hold|conduct|schedule|register|report)\b"
        r"|\b(?:an application|a petition"
        r"|written notice|by arbitration|a hearing) (?:\w+ ){0,3}(?:shall|must|may|is|to)\b"
        r"|\b(?:provided that|only if|on condition that|so long as|as long as)\b"
        # "Information disclosed orally shall be considered Confidential Information if it is
        # reduced to writing …": the condition is what has to be done.
        r"|\b(?:shall|will) be (?:considered|deemed|treated as)\b[^.;]{0,200}?\b(?:if|when|once)\b", re.I),
}


# A facet that names its unit ("how many school days", "what fee") needs a value in it.
UNIT_PATTERNS: dict[str, re.Pattern] = {
    # A cost may be stated as a rate ("a late charge equal to 1.5% per month").
    "money": re.compile(rf"\$\s?\d|\b\d[\d,.]*\s*dollars?\b|\bdollars\b|{CURRENCY}|{CENTS}"
                        r"|\b(?:no|without) (?:fee|charge|cost)\b"
                        r"|\bfree of charge\b|\bat no (?:cost|charge)\b"
                        r"|\b(?:charge|fee|interest|rate|penalty)\b[^.;]{0,60}?\d[\d.]*\s*"
                        r"(?:%|percent|per cent)",
                        re.I),
    "size": re.compile(SIZE, re.I),
    # "How tall / how high": a size that is a height ("not exceed six feet in height", "35
    # feet above grade", "elevated to at least 1 foot above the base flood elevation", "two
    # stories"), not the 75 feet between warning signs; a length, for an area is no height
    # ("1-story: 1,000 square feet" is a floor area).
    "height": HEIGHT_RE,
    # A share of a whole; "one-half acre", "3/4 inch" are sizes.
    "percent": re.compile(r"\d\s*%|\bper ?cent\b"
                          r"|\b(?:(?:one|two|three)-(?:half|third|fourth|fifth|sixth|tenth)s?|\d+/\d+)\b"
                          r"(?!\s*(?:-|of an? )?\s*(?:square|cubic|acres?|miles?|inch(?:es)?|feet|foot|yards?"
                          r"|pounds?|hours?|days?|weeks?|months?|years?)\b)", re.I),
    **{unit: re.compile(rf"\b{VALUE_NUMBER}(?:\s*\(\d+\))?[\s-]+(?:business |calendar |school |working )?"
                        rf"{unit}s?\b", re.I) for unit in ("day", "week", "month", "year", "hour")},
    # A length of time ("how long"): a number of days, weeks …, or how long a rule lasts
    # ("until the information becomes public", "shall survive", "for the term"); not
    # "promptly", "annually" or a clock time, which say when, not how long.
    "period": re.compile(rf"\b{VALUE_NUMBER}(?:\s*\(\d+\))?[\s-]+{_UNIT_TIME}\b{_NOT_AGE_OR_TERM}"
                         r"|\b(?:until|till|unless and until|so long as|as long as|perpetual\w*|indefinite\w*"
                         r"|surviv\w*|in perpetuity"
                         r"|for the (?:term|life|duration))\b", re.I),
    # A count of persons: a number and, two describing words apart at most, a noun for
    # people ("5 residents of the county", "seven voting members", "a five-member board").
    "persons": re.compile(rf"\b(?!an?\b){VALUE_NUMBER}(?:\s*\(\d+\))?(?:[\s-]+[a-z]+,?){{0,2}}?[\s-]+"
                          rf"(?:{_PERSON_NOUNS})\b", re.I),
    # A permit named as a noun: "permitted" (allowed) is not one, though Porter stems both "permit".
    "permit": re.compile(r"\b(?:permits?|licen[cs]es?|variances?|certificates?|approvals?)\b", re.I),
    "clock": re.compile(r"\b\d{1,2}(?::\d\d)?\s*(?:a\.?m\b\.?|p\.?m\b\.?)"
                        r"|\b(?:midnight|noon|dusk|dawn|sunset|sunrise)\b"
                        r"|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b", re.I),
}


# A deadline asked "ahead of" or "in advance of" an event is a period before it: "18 months
# after the date of maturity" says nothing of how far ahead of maturity a notice is due.
# Only these words ask the direction; "how long must she wait before calling" is answered
# by a period after the last call.
_AHEAD_ASKED_RE = re.compile(r"\b(?:ahead|in advance|advance notice|beforehand)\b", re.I)
_COUNTED_AFTER_RE = re.compile(r"\s+(?:\w+\s+)?(?:after|following)\b", re.I)


def period_ahead_present(text: str) -> bool:
    """Whether ``text`` states a length of time (``UNIT_PATTERNS["period"]``) not counted
    after an event ("30 calendar days before maturity", "at least 10 days' notice"; not
    "for 18 months after the date of maturity")."""
    return any(not _COUNTED_AFTER_RE.match(text, m.end()) for m in UNIT_PATTERNS["period"].finditer(text))


# Text extracted from PDFs glues a number to the word before it ("vacant for180 days").
_GLUED_NUMBER_RE = re.compile(r"(?<=[a-z])(?=\d)")

_NAMING_KINDS = (FactKind.OBLIGATION, FactKind.PERMISSION, FactKind.PROCEDURE, FactKind.DEFINITION)


def slot_present(kind: str, text: str, unit: str = "") -> bool:
    """Whether ``text`` holds a value of the kind a facet of ``kind`` asks for (a
    general facet accepts any sentence) and, when the facet names a ``unit`` ("money",
    "percent", "size", "height", "day", "week", "month", "year", "hour", "clock", "period", "permit",
    "persons"), a value in that unit (for "period": a length of time; for "persons": a count
    of people; for "permit": a permit, licence, variance, certificate or approval named)."""
    text = _GLUED_NUMBER_RE.sub(" ", text)
    pattern = SLOT_PATTERNS.get(kind)
    if pattern is not None and not pattern.search(text):
        return False
    return unit not in UNIT_PATTERNS or bool(UNIT_PATTERNS[unit].search(text))


def term_weights(terms: Sequence[Term], idf: Mapping[str, float]) -> list[float]:
    """One weight per term: the highest IDF of its stems (a term the index has never
    seen is capped at the best-known term's weight, or 1.0) × the term's own weight in
    the facet (situation terms count less, ``retrieval.question``). The terms of the
    situation told before the question (``Term.told``) together weigh at most
    :data:`retrieval.question.SITUATION_WEIGHT` × the question's own terms: a long story
    ("moved his Cessna to a hangar in Bend for good") is the case, not the question, and
    cannot outweigh what is asked ("how long to register it with the state")."""
    known = [max((idf[s] for s in t.stems if s in idf), default=None) for t in terms]
    cap = max((w for w in known if w is not None), default=UNSEEN_WEIGHT_CAP)
    weights = [(min(w, cap) if w is not None else cap) * t.weight for w, t in zip(known, terms, strict=True)]
    # A word the question uses as a verb is the asker's wording of the act ("how much can
    # the court tack on", "who gets stuck paying"); the law words it otherwise, and a
    # colloquial verb is rare in legal text, so its idf would outweigh every noun of the
    # question. Unless the lexicon knows how the law words it ("poach" ↔ solicit), it
    # weighs at most half as much as the question's weightiest noun, as a support verb
    # (:data:`SUPPORT_VERBS`) does: "how much advance notice does it have to give" is
    # asked about the notice, "how long can a building sit empty" about the vacancy.
    nouns = [w for w, t in zip(weights, terms, strict=True) if not t.verbal and not t.told]
    if nouns:
        weights = [min(w, _verb_cap(t, max(nouns))) if t.verbal and not t.told else w
                   for w, t in zip(weights, terms, strict=True)]
    asked = sum(w for w, t in zip(weights, terms, strict=True) if not t.told)
    told = sum(w for w, t in zip(weights, terms, strict=True) if t.told)
    if asked and told > SITUATION_WEIGHT * asked:
        scale = SITUATION_WEIGHT * asked / told
        weights = [w * scale if t.told else w for w, t in zip(weights, terms, strict=True)]
    return weights


def _verb_cap(term: Term, noun: float) -> float:
    """The most a verb of the question weighs, given its weightiest noun's weight
    ``noun``: a support verb or a verb the lexicon does not know
    :data:`SUPPORT_VERB_SHARE` × ``noun``, a verb the lexicon knows no cap (inf)."""
    if term.stems[0] in SUPPORT_VERBS or term.alternatives == (term.stems,):
        return SUPPORT_VERB_SHARE * noun
    return math.inf


def holds(term: Term, stems: Collection[str]) -> bool:
    """Whether ``stems`` (a text's Porter stems) hold ``term`` in one of its phrasings
    (``Term.alternatives``: every stem of one alternative)."""
    return any(all(s in stems for s in alt) for alt in term.alternatives)


def facet_coverage(facet: Facet, text: str, *, context: str = "",
                   idf: Mapping[str, float] | None = None, stems: set[str] | None = None,
                   context_stems: set[str] | None = None, said: Collection[Term] = ()) -> float:
    """IDF-weighted share in [0, 1] of ``facet``'s topic terms in ``text`` (full credit)
    or only in ``context`` (:data:`CONTEXT_CREDIT`).
    ``stems`` / ``context_stems``: the texts' Porter stems, when the caller has them;
    ``said``: terms ``text`` holds in other words (:func:`meaning_coverage`).
    A facet with no terms ("How long does that take?") has nothing a sentence could be
    about: 0.0 (a follow-up gets the earlier question as its situation, see
    ``sessions.pipeline``)."""
    if not facet.terms:
        return 0.0
    stems = stems if stems is not None else set(content_terms(text))
    context_stems = context_stems if context_stems is not None else set(content_terms(context))
    weights = term_weights(facet.terms, idf or {})
    total = sum(weights)
    got = 0.0
    for term, weight in zip(facet.terms, weights, strict=True):
        if term in said or holds(term, stems):
            got += weight
        elif holds(term, context_stems):
            got += CONTEXT_CREDIT * weight
    return got / total if total else 1.0


@dataclass(frozen=True)
class Relevance:
    """How a sentence bears on the question: per facet its coverage in [0, 1] (by meaning
    for a facet in ``by_meaning``) and
    whether the slot is present; ``addressed`` the indices of the facets it addresses;
    ``score`` in [0, 1] (1.0 when it addresses a facet by its words, :data:`MEANING_SCORE`
    when by meaning only, else its best coverage relative to :data:`ADDRESS_MIN`, halved
    when the asked kind of value is missing): the order of sentences and passages;
    ``vouched`` the share of it a claim's confidence may rest on."""

    coverage: tuple[float, ...]
    slots: tuple[bool, ...]
    addressed: tuple[int, ...]
    score: float
    # Facets addressed only once words were matched by meaning (a subset of ``addressed``).
    by_meaning: tuple[int, ...] = ()
    # Facets whose every test passed but coverage (and the sentence's own term): the ones
    # a reading by meaning may turn (empty once read by meaning).
    near: tuple[int, ...] = ()
    # Addressed facets of no known kind (general, outside a Draft request): no slot was
    # checked, so the sentence is on the topic but not shown to state the asked fact.
    untyped: tuple[int, ...] = ()

    @property
    def by_words(self) -> bool:
        """Whether the sentence addresses a facet by its words, not by meaning only."""
        return any(i not in self.by_meaning for i in self.addressed)

    @property
    def vouched(self) -> float:
        """The relevance in [0, 1] a claim's confidence is scaled by: ``score``, at most
        :data:`MEANING_SCORE` when every facet the sentence addresses is of no known kind
        (``untyped``: no slot was checked) or read by meaning. Ranking keeps ``score``: a
        sentence that addresses an untyped facet still comes before one that does not."""
        if self.addressed and all(i in self.untyped or i in self.by_meaning for i in self.addressed):
            return min(self.score, MEANING_SCORE)
        return self.score

    @property
    def relevant(self) -> bool:
        """Whether the sentence addresses at least one facet."""
        return bool(self.addressed)

    def as_dict(self) -> dict:
        """JSON-ready copy, scores rounded to 4 decimals."""
        return {"coverage": [round(c, 4) for c in self.coverage], "slots": list(self.slots),
                "addressed": list(self.addressed), "by_meaning": list(self.by_meaning),
                "untyped": list(self.untyped), "score": round(self.score, 4)}


# Records of deliberation state what was said, not what the law is: a sentence of the
# minutes of a meeting answers a question only when the question asks about a meeting.
DELIBERATIVE_TITLE_RE = re.compile(r"\b(?:minutes|agenda|transcript)\b", re.I)
# A meeting asked about is a particular one ("at this week's meeting", "the August 13
# meeting", "its regular meeting"); "Can the council hold a closed meeting?" asks about
# the law of meetings, which a record of one does not state.
ASKS_ABOUT_MEETING_RE = re.compile(
    r"\b(?:minutes|agenda|council (?:discuss|decide|vote)\w*|voted?|discuss\w*|hearing|testimony)\b"
    r"|\b(?:the|that|this|last|its|their|our|next|which|what)\s+(?:[\w'’-]+\s+){0,3}?meetings?\b",
    re.I)


# What a record of deliberation says was decided: a motion and its fate, or a rule it
# states. A question about what a council adopted is not answered by what someone told it
# ("The Knights were driving by the boat ramp last night at 9 PM").
DECISION_RE = re.compile(
    r"\b(?:mov(?:ed|es)|seconded|motion|approv\w*|adopt\w*|pass(?:ed|es)|carried|vot(?:ed|es)|resolv\w*"
    r"|enact\w*|shall|must|may)\b", re.I)


# The enacting record of an ordinance or a resolution ("Passed unanimously on first
# reading … at a meeting of the Rivergrove City Council on the 12th day of August, 1974",
# "ADOPTED by the Rivergrove City Council this 12 day of June, 1978") says when the text
# was enacted, not what it provides: it answers only a question about its enactment.
ENACTMENT_RE = re.compile(
    r"^\W*(?:(?:duly |unanimously |finally )?(?:passed|adopted|approved|enacted|read|signed|attested?|filed)"
    r"(?:,)?\s+(?:by|at|on|this|unanimously|and|for|in|as|with)\b[^.;]{0,240}?"
    r"\b(?:council|commission|board|mayor|recorder|clerk|reading|(?:this|the) \d+\w* day)\b"
    r"|(?:dated|done) (?:this|the) \d+\w* day of)", re.I)
# ("approval" is not among them: "Do I need the county's approval?" asks about a permit.)
ASKS_ABOUT_ENACTMENT_RE = re.compile(
    r"\b(?:adopt\w*|passed|passage|enact\w*|signed into law|effective date|takes? effect|took effect"
    r"|vote[ds]?)\b", re.I)


def other_district(analysis: QuestionAnalysis, text: str) -> bool:
    """Whether the question asks for a value of the zoning districts it names
    (``QuestionAnalysis.codes``: a lot size, a setback, a height) and ``text`` names none
    of them ("R-1" is not "R-1A"). Whether a use is allowed in a district may be answered
    by a rule that names others: "permitted only in I-1 or I-2 zoning districts"."""
    return bool(analysis.codes) and analysis.kind == FactKind.AMOUNT and not any(
        re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text) for code in analysis.codes)


def out_of_place(analysis: QuestionAnalysis, jurisdiction: str, text: str) -> bool:
    """Whether a passage of ``jurisdiction`` (its code) with ``text`` (its words, heading
    and title) lies outside the places the question confines itself to
    (``QuestionAnalysis.places``: a town or county, or a state whose law it asks about):
    another town's or county's, or a state or federal one that never names the place. A
    Ray County question is not answered by a federal rule that shares its generic words
    ("appeal", "variance", "days"); a state statute that names the town is about it.
    A firm document (jurisdiction ``private``) is out of place unless the question may be
    answered by one (``QuestionAnalysis.firm``): a carrier's contract does not say how long
    a debt collector must wait. A passage that names none of the zoning districts a
    question asks a value of is out of place too (:func:`other_district`)."""
    if jurisdiction == PRIVATE and not analysis.firm:
        return True
    if other_district(analysis, text):
        return True
    if not analysis.places or any(jurisdiction == code for code, _ in analysis.places):
        return False
    lowered = text.lower()
    return not any(re.search(rf"\b{re.escape(name.lower())}\b", lowered) for _, name in analysis.places)


# "time accounts … that do not renew automatically": a restrictive clause that picks out
# the things meant by what they do not do. Its words say which things are not meant.
_NEGATED_CLAUSE_RE = re.compile(
    r"\b(?:that|which|who)\s+(?:do|does|did|is|are|was|were|has|have|had|will|can|could|would|may)"
    r"(?:\s+not|n['’]t)\s+((?:[A-Za-z]+\s*){1,2})", re.I)
# "a seller without a license", "a CD that doesn't renew": words the question itself negates.
_NEGATION_RE = re.compile(r"(?:\b(?:not|no|never|without|non)|n['’]t)\s+((?:[A-Za-z]+\s*){1,4})", re.I)


def negated_only(text: str) -> set[str]:
    """Porter stems ``text`` holds only inside a negated restrictive clause ("institutions
    shall disclose … for time accounts that do not renew automatically" → {"renew",
    "automat"}): the sentence is about the things that do not do it."""
    inside = {s for m in _NEGATED_CLAUSE_RE.finditer(text) for s in content_terms(m.group(1))}
    if not inside:
        return set()
    return inside - set(content_terms(_NEGATED_CLAUSE_RE.sub(" ", text)))


def sentence_relevance(analysis: QuestionAnalysis, text: str, *, context: str = "",
                       idf: Mapping[str, float] | None = None, title: str = "",
                       scope: str | None = None, elsewhere: bool = False,
                       meaning: bool = False) -> Relevance:
    """The :class:`Relevance` of one sentence (``context``: its neighbours, heading and
    document title; ``title``: the document's title; ``scope``: the text that may hold a
    key term for the sentence, its heading and document title, ``context`` when None) to
    every facet of ``analysis``. Years
    the question names must appear in the sentence or its context, the months it names
    must fall in the sentence's range of months when it states one
    (:func:`retrieval.seasons.season_fits`; a month so covered counts as held), and a sentence of a
    deliberative record (:data:`DELIBERATIVE_TITLE_RE`: minutes, agendas) addresses a
    facet only when the question asks about a meeting (and, when it asks what was
    adopted, only a sentence that records a decision, :data:`DECISION_RE`), the enacting record of an
    ordinance (:data:`ENACTMENT_RE`: "ADOPTED by the City Council this 12 day of June")
    only when it asks about an enactment, and a passage ``elsewhere`` (of
    another place than the question's, :func:`out_of_place`) addresses none: it is
    related, never the answer. With ``meaning`` a facet that only lacks coverage is read
    by meaning (:func:`meaning_coverage`; needs the ``minilm`` extra, else raises
    ``ImproperlyConfigured``)."""
    stems, context_stems = set(content_terms(text)), set(content_terms(context))
    contrary = negated_only(text) - {s for m in _NEGATION_RE.finditer(analysis.question)
                                     for s in content_terms(m.group(1))}
    scope_stems = context_stems if scope is None else set(content_terms(scope))
    coverage, slots, addressed, scores, by_meaning, near = [], [], [], [], [], []
    years_ok = all(y in text or y in context for y in analysis.years)
    asked = asked_months(analysis.question)
    if not season_fits(asked, text):
        years_ok = False  # a rule for other months than those asked: related, never the answer
    stems |= in_season(asked, text)  # "a July evening" is said by "From May through October"
    if DELIBERATIVE_TITLE_RE.search(title) and (
            not ASKS_ABOUT_MEETING_RE.search(analysis.question)
            or ASKS_ABOUT_ENACTMENT_RE.search(analysis.question) and not DECISION_RE.search(text)):
        years_ok = False  # the same effect as a missing year: related, never the answer
    if ENACTMENT_RE.search(text) and not ASKS_ABOUT_ENACTMENT_RE.search(analysis.question):
        years_ok = False
    if elsewhere:
        years_ok = False
    for i, facet in enumerate(analysis.facets):
        c = facet_coverage(facet, text, idf=idf, stems=stems, context_stems=context_stems)
        # A sentence defining the term the clause asks the meaning of covers the clause:
        # the question describes the term in its own words (8 of the module docstring).
        defining = defines(text, facet.defines)
        if defining:
            c = max(c, ADDRESS_MIN)
        focus = facet.focus is None or holds(facet.focus, stems)
        # "What permits are needed…": naming the asked thing answers a which/what question
        # of obligation or permission; a deadline or an amount still needs its value.
        named = facet.focus is not None and focus and facet.kind in _NAMING_KINDS
        slot = named or slot_present(facet.kind, text, facet.unit)
        slot = slot and measure_present(facet.measure, text)  # a stated case needs the threshold
        if facet.kind == FactKind.DEADLINE and _AHEAD_ASKED_RE.search(facet.text):
            slot = slot and period_ahead_present(text)
        coverage.append(c)
        slots.append(slot)
        # Context completes a sentence, never replaces it: the sentence itself must hold
        # one of the facet's own terms ("Section 6 … is repealed on January 1, 2024" in
        # a minimum-wage chapter does not say what the minimum wage is).
        # A year is checked on its own (``years_ok``), so it is not a term that says what
        # the sentence is about.
        # (A term's weight may have fallen inside a named contract, retrieval.specificity:
        # it is still the clause's own.)
        topical = [t for t in facet.terms
                   if not t.told and not t.shared and not all(s.isdigit() for s in t.stems)]
        own = not topical or defining or any(holds(t, stems) for t in topical)
        required = facet.keys + ((facet.action,) if facet.action else ())
        keyed = all(holds(k, stems) or holds(k, scope_stems) for k in required)
        keyed = keyed and not any(holds(t, contrary) for t in facet.terms if not t.told)
        # "Does it have to keep paperwork on those purchases?": the purchases are the
        # situation's (cedar bought from the cutters), so an answer names one of its terms.
        told = [t for t in facet.terms if t.told]
        keyed = keyed and (not facet.refers_back or not told
                           or any(holds(t, stems) or holds(t, context_stems) for t in told))
        if (c < ADDRESS_MIN or not own) and slot and years_ok and focus and keyed:
            if not meaning:
                near.append(i)
            else:
                read, held = meaning_coverage(analysis.question, facet, text, idf=idf or {}, stems=stems,
                                              context_stems=context_stems)
                if read >= ADDRESS_MIN and (not topical or any(t in held for t in topical)):
                    addressed.append(i)
                    by_meaning.append(i)
                    coverage[i] = read  # the coverage that made it address, to order the leads
        elif c >= ADDRESS_MIN and slot and years_ok and focus and own and keyed:
            addressed.append(i)
        scores.append(min(1.0, c / ADDRESS_MIN) * (1.0 if slot else 0.5) * (1.0 if years_ok else 0.5)
                      * (1.0 if focus else 0.5) * (1.0 if keyed else 0.5))
    untyped = tuple(i for i in addressed if i not in by_meaning and i in analysis.untyped)
    if addressed:
        score = 1.0 if len(by_meaning) < len(addressed) else MEANING_SCORE
    else:
        score = max(scores, default=0.0)
    return Relevance(tuple(coverage), tuple(slots), tuple(addressed), score,
                     tuple(by_meaning), tuple(near), untyped)


def meaning_coverage(question: str, facet: Facet, text: str, *, idf: Mapping[str, float],
                     stems: set[str], context_stems: set[str]) -> tuple[float, set[Term]]:
    """(:func:`facet_coverage` of ``text`` in [0, 1], the terms ``text`` holds) with a term
    the sentence lacks counted as held when one of its words in ``question`` meets a word
    piece of ``text`` at :data:`MEANING_MATCH` (:func:`retrieval.meaning.word_similarities`;
    ``stems``: the Porter stems of ``text``, ``context_stems`` of its context). Raises
    ``ImproperlyConfigured`` when the ``minilm`` extra is missing."""
    from retrieval.meaning import word_similarities

    # The question's words, not the clause's: a term of the situation told before the
    # question (``Term.told``) is worded there.
    words = [w for w in TOKEN_RE.findall(question) if not w.isdigit()]

    def said(term: Term) -> bool:
        surface = [w for w in words if stem(w.lower()) in term.stems]
        return bool(surface) and max(word_similarities(question, surface, text)) >= MEANING_MATCH

    held = {t for t in facet.terms if holds(t, stems) or said(t)}
    return facet_coverage(facet, text, idf=idf, stems=stems, context_stems=context_stems, said=held), held
