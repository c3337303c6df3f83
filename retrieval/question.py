"""Question analysis: what is asked, about what, where (DESIGN.md §1 "answerability"; issue 9).

Before retrieval a question is read for

- the **kind of fact** it asks for (:class:`FactKind`): a deadline or period, an amount
  or number, a permission (yes/no with its conditions), an obligation and who bears it,
  a definition, a procedure, or something general;
- its **facets**: one per clause ("How often …, and is a permit needed?" has two), each
  with its kind and its topic terms (Porter stems, question scaffolding removed), each
  term with the everyday/legal alternatives of :mod:`retrieval.lexicon`;
- the **years** it names ("in 2019"), which the answer's source must speak to.

Places and parties are resolved against the workspace in :mod:`retrieval.places`.
The same analysis drives query expansion and the fact-kind rerank (retrieval), the
sentence choice of the extractive Writer, and the relevance judgement of every claim
(:mod:`verification.relevance`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from lemminflect import getAllLemmas

from ciq.text import DISTRICT_CODE_RE, STOPWORDS, content_terms, stem, tokenize
from retrieval.definitions import definiendum
from retrieval.lexicon import alternatives, has_phrase, longest_phrases, written, written_alternatives
from retrieval.lexicon import phrases as lexicon_phrases
from retrieval.measures import stated_measure


class FactKind(StrEnum):
    """The kind of fact a question (or one facet of it) asks for."""

    DEADLINE = "deadline"  # a period, a time limit, a frequency, a date or an hour
    AMOUNT = "amount"  # money, a percentage, a size, a count, a limit
    PERMISSION = "permission"  # may / may not, with its conditions
    OBLIGATION = "obligation"  # must / need not, and who bears it
    DEFINITION = "definition"  # what a term means or covers
    PROCEDURE = "procedure"  # the steps, filings and who receives them
    GENERAL = "general"


# Cues, tried in this order on each clause (the first that matches names the kind).
# A "how much notice/time" question asks for a period, so deadline cues come first.
# "What does the agreement treat as protected information?", "At what point does the
# county regard an old car parked on the street as abandoned?": a question word, then a
# verb of treating something as something, asks what counts as one (a definition); "Can
# the landlord treat me as a trespasser?" asks a permission.
_TREATING_ASKED = r"\b(?:what|when|which|at what point)\b[^?.;]{0,60}?"
_TREATING_VERB = (r"\b(?:treat|treats|treated|regard|regards|regarded|deem|deems|deemed)\b"
                  r"(?=[^?.;]{0,60}?\bas\b)")
_TREATED_AS = _TREATING_ASKED + _TREATING_VERB

# The measures a cutoff or threshold may be of ("a size cutoff", "an income threshold"):
# such a cutoff is an amount; a bare "cutoff" ("the cutoff for filing") a date.
_MEASURED = ("size", "dollar", "asset", "income", "revenue", "volume", "sales")

_KIND_CUES: list[tuple[FactKind, re.Pattern]] = [
    (FactKind.DEADLINE, re.compile(
        r"\bhow (?:long|soon|quickly|fast|often|frequently|many (?:days|weeks|months|years|hours"
        r"|business days|calendar days|school days|times))\b|\bhow much (?:time|notice|heads[- ]up"
        r"|advance notice|warning|lead time)\b|\bby when\b|\bwhen (?:must|do|does|should|is|are|will"
        r"|can|did)\b|\bwhat (?:time|day|night|date|hours?)\b|\bdeadline\b|\btime limit\b"
        + "|" + "".join(f"(?<!{m} )" for m in _MEASURED) + r"\bcut-?off\b"
        r"|\bhow far (?:behind|in advance|ahead)\b|\buntil when\b|\bhow late\b|\bhow early\b"
        r"|\bwhat (?:\w+ ){0,3}(?:hours|times|dates|days)\b",
        re.I)),
    (FactKind.PROCEDURE, re.compile(
        r"\bhow (?:do|does|can|would|should) (?:i|we|you|they|one|a|an|the|someone|my|our)\b"
        r"|\bwhat(?:'s| is| are)? the (?:[a-z-]+ ){0,2}?(?:process|procedure|steps)\b"
        r"|\bwhat (?:do|does|must|should) (?:i|we|you|they|one|he|she|it) (?:need|have) to"
        r" (?:do|file|submit|send)\b"
        r"|\bwhat (?:do|must|should) (?:i|we|you|they) (?:file|submit|do)\b|\bwhat does it take\b"
        # "What has to happen before he counts as disabled?" asks what makes a thing count
        # as another: a definition (below), not a procedure.
        r"|\bwhat (?:has|needs) to happen\b(?!.{0,60}\b(?:counts?|qualif(?:y|ies)) as\b)|\bwhat happens\b"
        r"|\bsteps?\b|\bhow (?:is|are) .{1,40} (?:resolved|handled|decided|appealed|filed)\b", re.I)),
    (FactKind.AMOUNT, re.compile(
        r"\bhow (?:much|many|big|large|small|tall|high|wide|deep|far|close|old)\b"
        # "What is the speed limit", "What's the late payment penalty": up to two words
        # may name what the amount is of.
        r"|\bwhat(?:'s| is| are| was)? (?:the |a |an )?(?:[a-z-]+ ){0,2}?(?:fee|fine|penalty|cost|price"
        r"|charge|rate|interest|amount|maximum|minimum|cap|limit|threshold|size|percentage|sum|salary|compensation)\b"
        # A setback, a height or a width is a distance ("What front yard setback does … require").
        r"|\bwhat(?:'s| is| are| was)? (?:the )?(?:[a-z-]+ ){0,3}?(?:setbacks?|height|width|depth|distance"
        r"|frontage|lot size)\b"
        # "What's the biggest dock allowed": a superlative of size asks for a size.
        r"|\bwhat(?:'s| is| are| was)? the (?:biggest|largest|smallest|widest|deepest|tallest|highest)\b"
        # ("At what point does the county treat it as a dead vehicle?" asks what counts as one.)
        r"|\bat what (?:size|amount|point|level)\b"
        rf"(?![^?.;]{{0,60}}?{_TREATING_VERB})"
        r"|\bis there (?:a|any) (?:cap|limit|maximum|minimum"
        r"|ceiling)\b|\bwhat (?:does|did|do|will|would|can|could) .{1,60} (?:charge|cost|pay|owe|bill)\b"
        r"|\bwhat .{0,30}(?:fee|fine|penalty|price|rate|interest)\b|(?<!\bat )\bthe (?:most|least)\b"
        r"|\bwhat (?:is|are|was|were) .{1,60} paid\b"
        # "What's the monthly sewer bill": a bill is money.
        r"|\bwhat(?:'s| is| are| was)? (?:the |a |an )?(?:[a-z-]+ ){0,3}?bills?\b"
        rf"|\b(?:{'|'.join(_MEASURED)}) (?:cut-?off|threshold)s?\b", re.I)),
    (FactKind.DEFINITION, re.compile(
        r"\bwhat (?:counts as|qualifies as|is meant by|does .{1,40} mean|exactly is)\b"
        rf"|{_TREATED_AS}"
        r"|\bwhat (?:has|needs) to happen\b.{0,60}\b(?:counts?|qualif(?:y|ies)) as\b"
        r"|\bwhat makes (?:\w+ ){1,4}(?:count|qualify) as\b"
        r"|\bdefin(?:e|ed|ition)\b|\bwhat is (?:a|an) [\w -]{1,40}\?|\bwhat kinds? of\b"
        r"|\bwhat exactly\b|\bwhich .{1,40} (?:count|qualify)\b"
        # "Does that count as a consumer lease?", "Would she qualify as a senior?"
        r"|\b(?:does|do|did|would|will|could|can) .{1,60}\b(?:count|qualify) as\b", re.I)),
    (FactKind.OBLIGATION, re.compile(
        r"\b(?:do|does|did|will) (?:i|we|you|they|he|she|it|the \w+|\w+) (?:still )?(?:have|need) to\b"
        r"|\b(?:have|has|need|needs) to\b|\bmust\b|\b(?:is|are) .{0,40}(?:required|needed|necessary)\b"
        r"|\brequired to\b|\bneed (?:a|an|to get|to obtain)\b"
        r"|\bobligat\w*\b|\bresponsib\w*\b|\bwho (?:pays|must|has to|is responsible|bears)\b"
        r"|\bowe[sd]?\b|\bsupposed to\b|\brequire[sd]? of\b|\bwhat does .{1,80} require\b"
        # "Am I forced to connect?" ("Can they make me move?" opens with "can": a permission)
        r"|\b(?:forced|compelled|obliged|obligated) to\b", re.I)),
    (FactKind.PERMISSION, re.compile(
        r"^(?:\W*)(?:can|could|may"
        r"|is (?:it|that|this) (?:legal|lawful|ok|okay|allowed|permitted|off[- ]limits)"
        r"|am i allowed|are (?:we|they|you) allowed|is (?:a|an|the|my|our) .{1,60} allowed"
        r"|does .{1,60} (?:let|allow"
        r"|permit)|do .{1,60} (?:let|allow|permit))\b|\b(?:allowed|permitted|prohibited|legal) to\b"
        r"|\bcan (?:i|we|you|they|he|she|a|an|the)\b"
        r"|\bis (?:there|it|that|this) .{0,30}(?:allowed|legal|lawful)\b"
        # "Will the city go along with that?", "Would the county let us …?", "… a carport
        # instead. allowed?"
        r"|\b(?:will|would) .{1,60}\b(?:let|allow|permit|approve|go along with)\b"
        r"|\b(?:allowed|permitted|ok|okay)\s*\??\s*$"
        r"|(?:^|[,;]\s*)(?:can|could|may)\s", re.I)),
]

# Words that frame a question rather than name its topic (after the kind cues are read).
SCAFFOLD = frozenset(stem(w) for w in """
    though although neither nor
    how long soon quickly fast often frequently much many big large small tall high wide deep far
    old what when where which who whom whose why whether can could would should will
    does do did need needs needed have has had get gets got go goes going make makes made let lets
    allowed required require requires exactly really actually just still even ever also
    else anything something someone somebody anyone everyone thing things way ok okay happen
    happens want wants wanted decide decided says say said know knows kind kinds sort
    deadline due process procedure step steps threshold draft drafting memo memorandum write
    prepare summarize summarise summary explain describe outline list please brief briefing
    client clients our us we i my me you your he she his her they them their it its there
    these days nowadays currently today right away now turn around after all every re
    count counts qualify qualifies mean means meant take takes taking cost costs
    owe owes owed long time period point level sure possible come comes came keep keeps
    already first last past this next now soon one two three four five six seven eight nine ten
    big biggest way whole able people person persons onto
    tallest highest largest widest deepest longest smallest shortest lowest greatest enough
    couple few several handful bunch near nearby
    spring summer autumn winter ago recently lately yesterday tomorrow
    isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't can't
    couldn't shouldn't wouldn't isn aren wasn weren hasn haven hadn doesn don didn couldn shouldn
    wouldn we're they're you're i'm i've we've they've you've i'd we'd they'd you'd i'll we'll
    they'll you'll he's she's it's that's there's let's who's""".split())
# Nouns that name the asked value itself ("the threshold", "the deadline"): the slot of
# the facet's kind stands for them, so a sentence need not repeat the word.
SLOT_NOUNS = frozenset(stem(w) for w in """
    amount threshold size limit cap maximum minimum number figure level time period deadline hour hours
    dollar dollars percent percentage money week weeks month months year years minute minutes
    space room area
    date day days process procedure steps step rule rules requirement requirements way
    """.split())
# Times of day a deadline question may ask in ("close at night", "open in the
# morning"): they give the clause the unit "clock", whose slot (a clock time, dusk,
# midnight, a weekday) stands for them.
_TIME_OF_DAY_WORDS = ("night", "nights", "nighttime", "evening", "evenings", "morning", "mornings",
                      "afternoon", "afternoons", "overnight")
TIME_OF_DAY = frozenset(stem(w) for w in _TIME_OF_DAY_WORDS)
# "Is that legal?", "Is it lawful to …": in a permission clause these words ask whether
# the act is allowed (the slot), they are not what a sentence must be about ("a legal
# entity that is self-insured" says nothing about recording a conversation). "Illegal"
# and "unlawful" stay: the lexicon reads them as a violation or an offense.
LEGALITY = frozenset(stem(w) for w in "legal lawful legally lawfully".split())
# "What/which X …", and "how much/long is (the) X …": X is what the clause asks about.
_FOCUS_RE = re.compile(r"\b(?:what|which)(?:'s| is| are| was| were)?\s+(?:the\s+|a\s+|an\s+)?"
                       # "What's the tallest fence": the superlative names the slot (a
                       # height), the noun after it what is measured.
                       r"(?:(?:kind|type|sort)s? of\s+|(?:biggest|largest|tallest|highest|widest|deepest"
                       r"|longest|smallest|shortest|lowest|greatest)\s+)?([a-z][\w-]+)"
                       r"|\bhow (?:much|long) (?:is|are|was|were) "
                       r"(?:(?:the|a|an|my|our|your|his|her|their|its|this|that)\s+)?"
                       r"(?!(?:it|that|this|there|they|these|those|too|so)\b)([a-z][\w-]+)"
                       # "How much notice does …", "how many covered garage spaces does …": the
                       # noun counted or measured, its verb right after it ("how much of the
                       # site has to stay open space" measures a share of the site, not the site).
                       r"|\bhow (?:much (?!of\b)|many )(?:[a-z-]+ ){0,2}?([a-z][\w-]+)"
                       r"(?= (?:does|do|did|is|are|was|were|must|should|can|could|will|would|may|might|has"
                       r"|have|had|need|needs|shall)\b)", re.I)
SITUATION_WEIGHT = 0.5  # terms of the situation told before the question, and shared context
# Terms kept whatever else happens: a number or year in the question is a fact to match.
YEAR_RE = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
# "went effective June 1, 2021", "signed … on November 17, 2016", "in March 2014": the date
# of an event of the case, not the year of a version of the law the answer must speak to
# ("the 2019 ordinance", "in 2019").
_EVENT_DATE_RE = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
                            r"(?:\s+\d{1,2}(?:st|nd|rd|th)?,?)?\s+(?:1[89]|20)\d\d\b"
                            r"|\b\d{1,2}/\d{1,2}/(?:1[89]|20)\d\d\b")
_CLAUSE_RE = re.compile(r"\?\s+|;\s+|,?\s+and\s+(?=(?:is|are|can|may|must|does|do|how|what|when"
                        r"|who|where|which|whether|if|will|would|should)\b)|\s+or\s+(?=(?:is|are|can"
                        r"|may|must|does|do|how|what|when)\b)", re.I)


@dataclass(frozen=True)
class Term:
    """One topic term of a facet: its Porter stems (a lexicon phrase may have several),
    every phrasing that means the same (``alternatives``, stem tuples), and its weight
    in the facet (1.0; :data:`SITUATION_WEIGHT` for the situation around the question)."""

    stems: tuple[str, ...]
    alternatives: tuple[tuple[str, ...], ...]
    weight: float = 1.0
    told: bool = False  # from the situation told before the question, not the question itself
    # The question uses the word as a verb ("can the court *tack* on", "gets *stuck*
    # paying"): how the asker puts the act, which the law may word otherwise
    # (:func:`retrieval.relevance.term_weights` caps its weight).
    verbal: bool = False
    # Taken from the question's first clause into a later one ("what's that meeting for"
    # after "how soon must they meet …"): context for the clause, not its own topic.
    shared: bool = False

    @property
    def key(self) -> str:
        """The term's stems joined with spaces ("garag sale"): its identity in a facet."""
        return " ".join(self.stems)

    def weighted(self, weight: float, *, told: bool = False, shared: bool | None = None) -> Term:
        """The same term with another weight in [0, 1] (``told``: it comes from the
        situation told before the question; ``shared``: from another clause, unchanged
        when None)."""
        return Term(self.stems, self.alternatives, weight, told, self.verbal,
                    self.shared if shared is None else shared)


@dataclass(frozen=True)
class Facet:
    """One thing an answer must address: the clause, its fact kind, its topic terms, and
    its ``focus`` (the noun a "what/which" question asks about, e.g. "insurance" in "What
    insurance must …", which an answering sentence must itself hold; None when the
    slot stands for it)."""

    text: str
    kind: str
    terms: tuple[Term, ...]
    focus: Term | None = None
    # The unit the clause names: money, percent, size, height, day, week, month, year, hour, period
    # (a length of time: "how long"), permit, or
    # clock (a time of day or a weekday: "close at night", "what night of the month").
    unit: str = ""
    # The modifiers of the noun phrase the clause asks about ("sign" of "a sign permit",
    # "sewer" of "sewer service"), each one of ``terms``: they say *which* permit or
    # service, so an answering sentence (or its heading) must hold every one
    # (:func:`key_terms`).
    keys: tuple[Term, ...] = ()
    # The act a permission clause asks about ("tow" of "Can the city tow a car …?") or a
    # deadline gives time for ("finish" of "how many days does a district get to finish
    # …?", "call" of "how long must they wait before calling?"), one of ``terms``
    # (:func:`action_term`, :func:`deadline_verb`): a sentence about parking cars on
    # streets does not say whether the city may tow them.
    action: Term | None = None
    # The clause points back at the situation told before it ("keep paperwork on *those*
    # purchases", "is *that* legal", "a fee for *that* permit"): what it asks about is
    # named there (:data:`_ANAPHOR_RE`), so an answer must hold a term of the situation.
    refers_back: bool = False
    # The dimension of a measure a yes/no clause or its situation states ("a $600
    # rental", "a 115-square-foot shed": money, size, …; :mod:`retrieval.measures`): the
    # rule's threshold in that dimension says which side of the line the case falls on,
    # so an answering sentence states one.
    measure: str = ""
    # The Porter stems of the term the clause asks the meaning of ("what counts as
    # 'residuals'" → ("residu",); :func:`retrieval.definitions.definiendum`): a sentence
    # defining it answers the clause in the document's words.
    defines: tuple[str, ...] = ()


@dataclass(frozen=True)
class QuestionAnalysis:
    """What the question asks. ``kind`` is the first facet's kind; ``years`` the years
    named (strings); ``situation`` the sentences told before the question itself."""

    question: str
    kind: str
    facets: tuple[Facet, ...]
    years: tuple[str, ...] = ()
    situation: str = ""
    # The local places (jurisdiction code, name: "US-OR-Rivergrove", "Rivergrove") a
    # question confines itself to ("In Rivergrove, …", not "Under Oregon law, …"): a
    # passage of another jurisdiction that does not name them is related, not an answer
    # (:meth:`placed`, ``retrieval.relevance.out_of_place``).
    places: tuple[tuple[str, str], ...] = ()
    # Whether a firm document (a contract, an NDA, a policy: jurisdiction "private") may
    # answer: it binds its parties and speaks for the firm, not for the law, so it answers
    # a question that names one of its parties or points at an agreement ("our NDA",
    # "under the lease"), not "How long must a debt collector wait …" (:meth:`firm_scoped`,
    # ``retrieval.relevance.out_of_place``). True until routing says otherwise.
    firm: bool = True
    # The zoning district codes the question names ("R-1", "R-1A", "B-2", "R-MHP";
    # ``ciq.text.DISTRICT_CODE_RE``): each district has its own lot sizes and setbacks, so a
    # passage that names none of them does not say the value asked of them
    # (``retrieval.relevance.other_district``).
    codes: tuple[str, ...] = ()
    # A Draft request's reading (:meth:`as_topic`): its facets name topics to cover, so
    # their being general is by design, not a kind of fact the reading failed to tell.
    drafting: bool = False

    @property
    def untyped(self) -> tuple[int, ...]:
        """Indices of the facets whose kind of fact the reading could not tell (general),
        outside a Draft request: no slot can check that an answer states what they ask
        (``retrieval.relevance.Relevance.untyped``)."""
        return () if self.drafting else tuple(
            i for i, f in enumerate(self.facets) if f.kind == FactKind.GENERAL)

    @property
    def topic(self) -> tuple[Term, ...]:
        """Every facet's terms, deduplicated, in order."""
        seen: dict[str, Term] = {}
        for facet in self.facets:
            for term in facet.terms:
                seen.setdefault(term.key, term)
        return tuple(seen.values())

    def expansion_text(self) -> str:
        """The alternative phrasings of the question's terms, as written, that add a word
        the question lacks (appended to the lexical query)."""
        own = {s for t in self.topic for s in t.stems}
        extra: dict[str, None] = {}
        for term in self.topic:
            for alt in term.alternatives:
                if any(s not in own for s in alt):
                    extra.setdefault(written(alt), None)
        return " ".join(extra)

    def scoped(self, names: Iterable[str]) -> QuestionAnalysis:
        """A copy without the terms that only name the search's scope (``names``: the
        places, authorities and parties routing resolved, e.g. "Rivergrove", "CFPB",
        "Sierra Mountain Minerals"): the documents searched are already theirs, so a
        sentence need not repeat them."""
        scope = {s for name in names for s in content_terms(_POSSESSIVE_RE.sub("", name))}
        if not scope:
            return self

        def keep(term: Term) -> bool:
            return not all(s in scope for s in term.stems)

        facets = tuple(replace(f, terms=tuple(t for t in f.terms if keep(t)),
                               focus=f.focus if f.focus and keep(f.focus) else None,
                               keys=tuple(t for t in f.keys if keep(t)),
                               action=f.action if f.action and keep(f.action) else None)
                       for f in self.facets)
        return replace(self, facets=facets)

    def keyed(self, names: Iterable[str]) -> QuestionAnalysis:
        """A copy in which the topic terms that are one of ``names`` (the names a few
        documents mention in passing, ``retrieval.places.Routing.mentioned``) are key
        terms of their facets: "What front yard setback does Tualatin require?" is not
        answered by another town's setback."""
        stems = {tuple(content_terms(_POSSESSIVE_RE.sub("", n))) for n in names}
        if not stems:
            return self
        facets = tuple(replace(f, keys=f.keys + tuple(t for t in f.terms if t.stems in stems
                                                      and not t.told and t not in f.keys))
                       for f in self.facets)
        return replace(self, facets=facets)

    def placed(self, places: Iterable[tuple[str, str]]) -> QuestionAnalysis:
        """A copy confined to ``places`` ((code, name) pairs of the local places the
        question names, ``retrieval.places.Routing.local``)."""
        return replace(self, places=tuple(places))

    def firm_scoped(self, firm: bool) -> QuestionAnalysis:
        """A copy in which firm documents may answer (``firm`` True) or only relate."""
        return replace(self, firm=firm)

    def as_topic(self) -> QuestionAnalysis:
        """A copy whose facets ask for no particular kind of fact (general, no unit, no
        focus): a Draft request ("Draft a memo on tree removal permits and penalties")
        names a topic to cover, not a value to state."""
        facets = tuple(Facet(f.text, FactKind.GENERAL.value, f.terms) for f in self.facets)
        return replace(self, kind=FactKind.GENERAL.value, facets=facets, drafting=True)

    def as_dict(self) -> dict:
        """JSON-ready summary (stored on the turn, shown in the trace)."""
        return {
            "question": self.question, "kind": self.kind, "years": list(self.years),
            "situation": self.situation, "places": [code for code, _ in self.places], "firm": self.firm,
            "facets": [{"text": f.text, "kind": f.kind, "focus": f.focus.key if f.focus else "",
                        "unit": f.unit, "measure": f.measure, "keys": [t.key for t in f.keys],
                        "action": f.action.key if f.action else "", "refers_back": f.refers_back,
                        "terms": [t.key if t.weight == 1.0 else f"({t.key})" for t in f.terms]}
                       for f in self.facets],
        }


_BOTH = (FactKind.DEADLINE, FactKind.AMOUNT)
# (unit, the kinds of fact it is read for, its cue), first match wins.
_UNIT_CUES: list[tuple[str, tuple[str, ...], re.Pattern]] = [
    # "How many people sit on the board?": a count of persons, whatever the rule calls them
    # ("5 residents of the county", "seven members"), not of the prints a filing needs.
    # A count of a named kind ("how many jurors can each side strike") keeps its noun as a
    # topic term instead: "two peremptory challenges" answers it.
    ("persons", (FactKind.AMOUNT,),
     re.compile(r"\bhow many (?:\w+ )?(?:people|persons|individuals)\b", re.I)),
    ("money", (FactKind.AMOUNT,),
     re.compile(r"\b(?:fee|fees|fine|fines|cost|costs|charge|charges|price|paid|pay|pays|owe|owes"
                r"|bill|salary|wage|wages|rent|dollars?|compensation|penalty|penalties|reimburse\w*)\b"
                r"|\bhow much (?:money|is|are|does it cost)\b", re.I)),
    # "How much of the lot may a house cover?", "the most of the lot that buildings may
    # cover": a share of a whole.
    ("percent", _BOTH, re.compile(r"\b(?:percent|percentage|what share|what portion|what fraction)\b"
                                  r"|\b(?:how much|the most|the least) of"
                                  r" (?:the|a|an|my|our|your|his|her|their)\b",
                                  re.I)),
    # "How tall / how high": a size that is a height, not the distance between two signs.
    ("height", (FactKind.AMOUNT,),
     re.compile(r"\bhow (?:tall|high)\b|\bheight\b|\b(?:tallest|highest)\b", re.I)),
    ("size", (FactKind.AMOUNT,),
     re.compile(r"\bhow (?:wide|tall|high|deep|big|large|small|close)\b"
                r"|\b(?:biggest|largest|smallest|widest|deepest)\b"
                r"|\bhow far\b(?! (?:behind|in advance|ahead|back\b(?! from)))"
                r"|\b(?:square feet|(?<!per )acres?|feet|inches|setbacks?|height|width|depth|distance"
                r"|frontage)\b", re.I)),
    *[(unit, _BOTH, re.compile(rf"\bhow many (?:\w+ )?{unit}s\b|\b{unit}s? (?:notice|in advance)\b", re.I))
      for unit in ("day", "week", "month", "year", "hour")],
    # "What boat ramp hours …", "what time does it close": hours of the clock, not a period.
    ("clock", _BOTH, re.compile(rf"\b(?:{'|'.join(_TIME_OF_DAY_WORDS)})\b"
                                r"|\bwhat (?:[a-z-]+ ){0,3}hours\b|\bwhat time\b(?! (?:limit|frame|period))",
                                re.I)),
    # "How long is the confidentiality period?": a length of time, which "promptly" is not.
    # "How much heads-up does a bank owe?": an amount of notice is a length of time too.
    ("period", (FactKind.DEADLINE,), re.compile(r"\bhow long\b|\bhow much (?:time|notice|heads[- ]up"
                                                r"|advance notice|warning|lead time)\b", re.I)),
    # "Do I need a permit to build a shed?", "Does the county require a licence for …": the
    # permit is what is asked about, so an answer names one.
    ("permit", (FactKind.OBLIGATION, FactKind.PERMISSION),
     re.compile(r"\b(?:need|needs|needed|require[sd]?|requiring|get|obtain|apply for|pull)\s+"
                r"(?:a|an|any|the)?\s*(?:[a-z-]+\s+)?(?:permit|license|licence|variance|certificate)s?\b",
                re.I)),
]


# "What's the county's fee", "What’s the city’s fee": the cues read "what's" and a noun
# with its possessive dropped ("the county fee"), whatever the apostrophe.
_CUE_POSSESSIVE_RE = re.compile(r"\b(?!(?:what|that|it|there|here|who|where|how|let)['’]s\b)(\w+)['’]s\b",
                                re.I)


# "How long can a dock stick out into the river?": the length of a thing that extends is
# a distance ("how far"), not a period of time ("how long can a boat stay at the dock").
_EXTENT_RE = re.compile(r"\bhow long\b(?=[^?.;]{0,40}?\b(?:stick(?:s|ing)? (?:out|up)|extend(?:s|ing)?"
                        r"|project(?:s|ing)?|protrud\w*|jut(?:s|ting)?|overhang\w*"
                        r"|reach(?:es)? (?:out|into))\b)", re.I)


def cue_text(clause: str) -> str:
    """``clause`` as the kind and unit cues read it: curly apostrophes straightened,
    possessives dropped from nouns ("What's the county's fee" → "What's the county fee")
    and the "how long" of a thing that extends read as "how far" (:data:`_EXTENT_RE`)."""
    return _EXTENT_RE.sub("how far", _CUE_POSSESSIVE_RE.sub(r"\1", clause).replace("’", "'"))


def clause_unit(clause: str, kind: str) -> str:
    """The unit a clause names (:data:`_UNIT_CUES`, read for the kinds of fact each
    applies to): "how many people" → persons, "how many school days" → day, "what fee" →
    money, "how wide" → size, "how tall" → height, "how long" → period, "do I need a permit"
    → permit; or ""."""
    clause = cue_text(clause)
    return next((unit for unit, kinds, cue in _UNIT_CUES if kind in kinds and cue.search(clause)), "")


def fact_kind(clause: str) -> str:
    """The :class:`FactKind` value a question clause asks for, by its cue words
    (read in :func:`cue_text`)."""
    clause = cue_text(clause)
    for kind, cue in _KIND_CUES:
        if cue.search(clause):
            return kind.value
    return FactKind.GENERAL.value


_POSSESSIVE_RE = re.compile(r"(?<=\w)['’]s\b|(?<=\w)['’](?=\s)", re.I)
_NUMBER_RE = re.compile(r"^\d[\d,.]*$")
# Set phrases whose words mean nothing on their own: "a brand-new member" is a new one
# (not a trademark), a lot that "falls within" a district is in it (nobody trips).
_SET_PHRASES: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"\bbrand[- ]new\b", re.I), "new"),
    (re.compile(r"\b(?:fall|falls|fell|falling)\s+(?:(?:with)?in(?:to)?|under)\b", re.I), "in"),
    # Phrasal verbs that only say something happens ("what late charge *kicks in*", "if they
    # *end up* in court", "where would an arbitration *take place*"): the law names the
    # thing that happens, never the happening.
    (re.compile(r"\b(?:kick|kicks|kicked|kicking)\s+in\b|\b(?:end|ends|ended|ending)\s+up\b"
                r"|\b(?:take|takes|took|taken|taking)\s+place\b|\ba while (?:back|ago)\b", re.I), ""),
    # "Either side", "the other side": a party to the contract.
    (re.compile(r"\b(?:either|each|both|neither|the other|one) sides?\b", re.I), " party"),
    # "Without a signed writing", "is a writing required": the noun is the legal form ("in
    # writing"), not the verb "write" of "write me a memo", which frames a request.
    (re.compile(r"\b(?:in\s+)?writing\b", re.I), "written"),
    # "Where is the city supposed to publicize it?" asks what the city must do.
    (re.compile(r"\b(?:is|are|am|was|were)?\s*supposed to\b", re.I), " required to"),
    # What a party is exposed to: "what fine is he facing", "what are they looking at on a
    # first conviction", "what could she face" ask for the penalty, which the law states
    # without the facing.
    (re.compile(r"\b(?:is|are|am|was|were|be|being)\s+(?:\w+\s+)?facing\b"
                r"|\b(?:do|does|did|would|could|will|might|may|can)\s+(?:\w+\s+){1,3}?face\b"
                r"|(?<=\bwhat )(?:is|are|am|was|were|could|would|might|will)\s+(?:\w+\s+){0,2}?(?:be\s+)?"
                r"looking\s+at\b", re.I), " penalty"),
    # "Is that against the law?" asks whether it is unlawful, not what some law says.
    (re.compile(r"\bagainst the law\b", re.I), "unlawful"),
    # "Is that off-limits?" asks whether it is allowed, as "Is that legal?" does; no limit
    # is asked.
    (re.compile(r"\boff[- ]limits\b", re.I), "allowed"),
    # "Can we stop it, or at least delay it?": a hedge, not a minimum.
    (re.compile(r"\bor at (?:the )?(?:very )?least\b", re.I), "or"),
    # "What does the agreement treat as protected information?", "when does the county
    # regard it as junk": the verb frames a definition question ("counts as").
    (re.compile(rf"({_TREATING_ASKED}){_TREATING_VERB}", re.I), r"\1"),
    # "How long does the restriction run / last / stay in force?": the verb says it lasts,
    # which the period asked stands for.
    # ("How long can I run a sale?" runs a sale.)
    (re.compile(r"(\bhow long\b[^?.;,]{0,60}?)\b(?:run|runs|last|lasts|(?:stay|stays|remain|remains)"
                r" in (?:force|effect|place))\b"
                r"(?=\s*(?:[?.;,]|$|(?:and|after|once|from|if|unless|when|before|for)\b))",
                re.I), r"\1"),
)


def _set_phrases_read(text: str) -> str:
    for pattern, meaning in _SET_PHRASES:
        text = pattern.sub(meaning, text)
    return _particles_joined(text)


# A phrasal verb with its object between verb and particle: "cut his day short", "take
# the sign down", "call it off", or between verb and the adjective it makes of the object:
# "keep their information secret" (the object: one to three words after the verb).
_WORD_RE = re.compile(r"\b[a-z]+\b", re.I)
_OBJECT_PARTICLE_RE = re.compile(
    r"\s+(?P<object>(?:[a-z'’]+\s+){1,3}?)"
    r"(?P<particle>off|out|up|down|over|away|back|short|secret|confidential|private)\b", re.I)
_NOT_IN_OBJECT = frozenset("and or to if when because before after than then is are was were be".split())


def _particles_joined(text: str) -> str:
    """``text`` with a phrasal verb the lexicon knows put back together when its object
    stands between verb and particle ("can the district cut his day short" → "cut short
    his day", "keep their information secret" → "keep secret their information"): the
    lexicon matches phrases as written, particle next to its verb."""
    out, done = [], 0
    for word in _WORD_RE.finditer(text):
        if word.start() < done:
            continue
        m = _OBJECT_PARTICLE_RE.match(text, word.end())
        if not m or _NOT_IN_OBJECT.intersection(w.lower() for w in m.group("object").split()):
            continue
        verb, particle = word.group(0), m.group("particle")
        if any(has_phrase(f"{lemma} {particle}") for lemma in getAllLemmas(verb.lower()).get("VERB", ())):
            out.append(f"{text[done:word.start()]}{verb} {particle} {m.group('object').rstrip()}")
            done = m.end()
    return "".join(out) + text[done:]


# Words after which a verb form is used as a verb ("can tack", "gets stuck", "be shredded").
_VERB_BEFORE = frozenset("""can could will would may might must should shall to be been being get gets got
    getting i we you they he she it""".split())


# Particles that make a phrasal verb whose meaning is not its verb's ("call off" = cancel).
PHRASAL_PARTICLES = frozenset("off out up down over away back".split())
# Adverb particles after a verb ("kicks *in*", "runs *out*", "ends *up*"): a word that can
# be a verb, followed by one and not by a word no verb follows (:data:`_NOT_BEFORE_VERB`:
# "a dock in Rivergrove" is a noun), is used as one.
_VERB_PARTICLES = PHRASAL_PARTICLES | {"in"}


# Subject-auxiliary inversion: a modal or "do", a determiner and one noun (the subject),
# then the clause's last word, which is its verb ("What hours can the sale *run*?", "How
# often can the council *meet*?"). One subject word only: in "can a tenant withhold rent?"
# the clause's last word is the object.
_INVERTED_VERB_RE = re.compile(
    r"\b(?:can|could|will|would|may|might|must|should|shall|does|do|did)\s+"
    r"(?:the|a|an|my|our|your|his|her|their|its|this|that)\s+[a-z'’-]+\s+([a-z]+)"
    r"(?=\s*(?:[,?;.!]|$)|\s+(?:and|or|if|when|before|after|until|while|once)\b)", re.I)


def _verbal_stems(text: str) -> set[str]:
    """Porter stems of the words ``text`` uses as verbs: forms lemminflect knows only as a
    verb ("sit", "shredded", "hovering"), or as a verb among other parts of speech when a
    modal, "to", "be", "get" or a subject pronoun comes right before ("can *tack* on",
    "gets *stuck* paying", "can we *clear*"), an adverb particle right after ("what
    late charge *kicks* in") or the clause inverts its subject ("can the sale *run*",
    :data:`_INVERTED_VERB_RE`)."""
    tokens = tokenize(text)
    found = {stem(m.group(1).lower()) for m in _INVERTED_VERB_RE.finditer(text)
             if "VERB" in getAllLemmas(m.group(1).lower())}
    for i, token in enumerate(tokens):
        lemmas = getAllLemmas(token)
        if "VERB" not in lemmas:
            continue
        if (not ({"NOUN", "ADJ"} & lemmas.keys()) or (i and tokens[i - 1] in _VERB_BEFORE)
                or (tokens[i + 1:i + 2] and tokens[i + 1] in _VERB_PARTICLES
                    and not (i and tokens[i - 1] in _NOT_BEFORE_VERB))):
            found.add(stem(token))
    return found


def topic_terms(text: str, *, skip: Iterable[str] = ()) -> tuple[Term, ...]:
    """The topic terms of ``text``: content stems minus :data:`SCAFFOLD`, ``skip`` and
    numbers other than years (an amount in the question describes the case; the answer
    states the rule), lexicon phrases kept whole with their alternatives, in order,
    deduplicated. Possessives and contractions ("Rivergrove's", "what's") count as their
    word; set phrases ("brand-new", "falls within") as what they mean (:data:`_SET_PHRASES`)."""
    text = _POSSESSIVE_RE.sub("", _set_phrases_read(text))
    stems = content_terms(text)
    verbal = _verbal_stems(text)
    dropped = SCAFFOLD | set(skip)
    terms: dict[tuple[str, ...], Term] = {}
    phrases = {start: (end, phrase) for start, end, phrase in longest_phrases(stems)}
    i = 0
    while i < len(stems):
        if i in phrases:
            end, phrase = phrases[i]
            # A word the question writes in a phrase counted only as written means what
            # that phrase means ("paid off" a loan: a former customer, not a wage paid),
            # even a word that alone only frames the question ("take down", "get out of",
            # "turn down").
            written_sense = written_alternatives(phrase[0], text) if len(phrase) == 1 else None
            if len(phrase) > 1 or phrase[0] not in dropped or written_sense:
                # A lexicon word used as a verb ("have to *give*", "who has to *pay*") is
                # the asker's wording of the act as much as any other verb.
                terms.setdefault(phrase, Term(phrase, written_sense or alternatives(phrase),
                                              verbal=len(phrase) == 1 and phrase[0] in verbal))
            i = end
            continue
        s = stems[i]
        written_sense = written_alternatives(s, text)
        if (s not in dropped or written_sense) and not (_NUMBER_RE.match(s) and not YEAR_RE.fullmatch(s)):
            terms.setdefault((s,), Term((s,), written_sense or ((s,),), verbal=s in verbal))
        i += 1
    return tuple(terms.values())


def focus_term(clause: str, terms: Sequence[Term]) -> Term | None:
    """The term a "what/which X" or "how much/long is X" clause asks about, when it is
    one of ``terms`` and not a :data:`SLOT_NOUNS` or :data:`GENERIC_MODIFIERS` word, nor a
    :data:`SCAFFOLD` word outside a lexicon phrase ("the late fee" is one)."""
    m = _FOCUS_RE.search(cue_text(clause))
    if not m:
        return None
    named = m.group(1) or m.group(2) or m.group(3)
    if not named[0].islower():  # a name ("What is Idan Maimon paid") is not a focus
        return None
    word = stem(named.lower())
    # "What's the city fee …": "city" places the fee, it does not say which one.
    if word in SLOT_NOUNS or word in GENERIC_MODIFIERS:
        return None
    return next((t for t in terms if word in t.stems and (word not in SCAFFOLD or len(t.stems) > 1)), None)


# Nouns that name a kind of thing a question asks about, whose modifiers say which one
# ("sign permit", "sewer service", "business license fee", "speed limit"). A head noun
# in front of another one is generic ("permit fee", "application fee"): not a key.
HEAD_NOUNS = frozenset(stem(w) for w in """
    permit permits license licenses licence licences fee fees service services limit limits
    charge charges tax taxes plan plans fine fines penalty penalties rate rates registration
    inspection inspections certificate certificates account accounts
    """.split())
# Kinds of money the documents name apart: a tax is no fee and a fine no tax, so in front
# of another head noun ("property tax rate", "tax penalty") one of these says which.
PAYMENT_KINDS = frozenset(stem(w) for w in "tax taxes fine fines penalty penalties".split())
# Modifiers that narrow nothing the documents would name: the level of government (the
# search is already scoped to it), time words, size words.
GENERIC_MODIFIERS = frozenset(stem(w) for w in """
    city county state town village local federal municipal public private government new
    annual yearly monthly weekly daily current total basic standard general regular typical
    usual normal same other additional extra initial base flat average overall full usual
    legal official applicable required
    """.split())
_RAW_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*|\S")


def key_terms(clause: str, terms: Sequence[Term]) -> tuple[Term, ...]:
    """The modifiers of the noun phrases of ``clause`` whose head is one of
    :data:`HEAD_NOUNS`, as the ``terms`` that hold them: a cheap noun-phrase reading,
    where a phrase is a run of adjacent content words (no stopword, scaffold word,
    number or punctuation between them) and its modifiers are the words before a head
    noun, less :data:`GENERIC_MODIFIERS` and other head nouns that are no
    :data:`PAYMENT_KINDS` ("What's the city fee for a sign permit?" → "sign"; "How much is
    sewer service per month?" → "sewer"; "the property tax rate" → "property", "tax"); then
    the words of what a charge or a penalty is for ("the penalty for identity theft"), of
    the act a permit is for ("a permit to tear down"), of the ground of an act
    ("because I get public assistance") and the head of what one must report or disclose
    ("report a mortgage applicant's age" → age)."""
    keys: dict[str, Term] = {}
    run: list[str] = []

    def flush() -> None:
        for k, s in enumerate(run):
            if s not in HEAD_NOUNS:
                continue
            for modifier in run[:k]:
                if modifier in HEAD_NOUNS - PAYMENT_KINDS or modifier in GENERIC_MODIFIERS:
                    continue
                term = next((t for t in terms if modifier in t.stems), None)
                if term is not None and not any(x in HEAD_NOUNS - PAYMENT_KINDS for x in term.stems):
                    keys.setdefault(term.key, term)
        run.clear()

    for word in _RAW_WORD_RE.findall(_POSSESSIVE_RE.sub("", clause)) + ["."]:
        low = word.lower()
        if _ends_run(low):
            flush()
            continue
        run.append(stem(low))
    # "a permit to tear down a house", "a licence to sell liquor": the act a permit is for
    # says which permit, as a modifier before it does ("a demolition permit"); a light
    # verb names nothing ("a permit to build a deck": the deck does).
    for m in _PERMIT_FOR_ACT_RE.finditer(clause):
        act = m.group("act").lower()
        term = next((t for t in terms if stem(act) in t.stems), None)
        if term is not None and act not in LIGHT_VERBS and not any(x in HEAD_NOUNS for x in term.stems):
            keys.setdefault(term.key, term)
    # "How much can a bank charge for a replacement debit card?", "the penalty for identity
    # theft": what a charge or a penalty is for says which one, as a modifier before it
    # does ("a sign permit"); a $50 liability for unauthorized transfers is no card fee.
    for m in _CHARGED_FOR_RE.finditer(clause):
        for word in _leading_run(m.group("object")):
            if word in HEAD_NOUNS or word in GENERIC_MODIFIERS:
                continue
            term = next((t for t in terms if word in t.stems), None)
            if term is not None and not any(x in HEAD_NOUNS for x in term.stems):
                keys.setdefault(term.key, term)
    # "Can a lender refuse a loan because I get public assistance?": the ground of the act
    # says which rule answers; one about another ground ("because an applicant comes from
    # a particular country") does not. Its words but verbs and pronouns are keys.
    for m in _GROUND_RE.finditer(clause):
        for word in _RAW_WORD_RE.findall(m.group("ground")):
            low = word.lower()
            if not low[0].isalpha() or low in STOPWORDS or low in LIGHT_VERBS or low in _SUBJECT_PRONOUNS:
                continue
            term = next((t for t in terms if stem(low) in t.stems and not t.verbal), None)
            if term is not None:
                keys.setdefault(term.key, term)
    # What one must report or disclose is the information asked: the head of its noun
    # phrase ("a mortgage applicant's age" → age) says which rule answers; a rule on
    # reporting lien status does not.
    for m in _DISCLOSED_RE.finditer(clause):
        run = _leading_run(m.group("object"))
        head = run[-1] if run else ""
        if head and head not in HEAD_NOUNS and head not in GENERIC_MODIFIERS:
            term = next((t for t in terms if head in t.stems and not t.verbal), None)
            if term is not None:
                keys.setdefault(term.key, term)
    return tuple(keys.values())


def _leading_run(text: str) -> list[str]:
    """The stems of the run of content words ``text`` opens with, after its determiners
    ("a replacement debit card in …" → replac, debit, card): a noun phrase, read as
    :func:`key_terms` reads one."""
    run: list[str] = []
    for word in _RAW_WORD_RE.findall(_POSSESSIVE_RE.sub("", text)):
        low = word.lower()
        if not run and low in _DETERMINERS:
            continue
        if _ends_run(low):  # "paid for by the landlord": the payer is no object
            break
        run.append(stem(low))
    return run


def _ends_run(low: str) -> bool:
    """Whether the word ``low`` (lowercase) ends a run of content words: punctuation, a
    stopword or a :data:`SCAFFOLD` word."""
    return not low[0].isalpha() or low in STOPWORDS or stem(low) in SCAFFOLD


_DETERMINERS = frozenset(
    "a an the my our your his her their its this that these those any some each every".split())


_CHARGED_FOR_RE = re.compile(
    r"\b(?:charg(?:e|es|ed|ing)|fees?|costs?|prices?|fines?|fined|penalt(?:y|ies)|pay(?:s|ing)?|paid)\s+for\s+"
    r"(?P<object>[^,;?]+)",
    re.I)
_GROUND_RE = re.compile(r"\b(?:because(?: of)?|on the basis of|on account of|based on)\s+(?P<ground>[^,;?]+)",
                        re.I)
# "Do banks have to report a mortgage applicant's age?": what a rule makes one report or
# disclose, after a modal or "to" (the verb so used, not the noun "a report").
_DISCLOSED_RE = re.compile(r"\b(?:to|must|shall|should|can|may|will)\s+(?:\w+\s+)?(?:report|disclose|reveal"
                           r"|record|collect|list)\s+(?P<object>[^,;?]+)", re.I)


_PERMIT_FOR_ACT_RE = re.compile(
    r"\b(?:permit|license|licence|approval|variance|certificate)s?\s+to\s+(?P<act>[a-z]+)\b", re.I)


# Verbs that carry little of what is asked ("Can I put my kayak in …", "Can my client run
# a dog boarding business …", "Can I build a deck …"): the object names the act ("decks
# are permitted in rear yards"), so they are not required.
LIGHT_VERBS = frozenset("""
    be have do get make take give go put run use keep hold let set come add open start
    turn bring leave stay see try work help move own find look build construct install
    erect place locate operate conduct maintain establish create sit stand lie remain rest
    live act""".split())
_SUBJECT_PRONOUNS = frozenset("i we you they he she it someone somebody anyone anybody one".split())
_NOT_BEFORE_VERB = frozenset("""
    a an the my our your his her their its this that these those of in on at for by with
    to from any some no every each""".split())
_PERMISSION_OPENING_RE = re.compile(
    r"(?:^|[,;]\s*)(?:can|could|may|might)\s+(?P<rest>.+)$"
    r"|\b(?:allowed|permitted|legal|lawful|ok|okay|able)\s+(?:for\s+.{1,60}?\s+)?to\s+(?P<act>.+)$"
    r"|\b(?:let|allow|permit)s?\s+(?:me|us|you|them|him|her|it|people|residents|owners|tenants)\s+"
    r"(?:to\s+)?(?P<obj>.+)$", re.I)
_CLAUSE_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_PARTICLES = ("back", "out", "off", "up", "down", "over", "away")
MAX_SUBJECT_WORDS = 8


def _base_verb(word: str) -> bool:
    """Whether ``word`` (lowercase) is an English verb in its base form (lemminflect's
    lexicon)."""
    return word in getAllLemmas(word).get("VERB", ())


def asked_verb(clause: str) -> str:
    """The verb of the act a permission clause asks about (lowercase, base form) or "":
    the verb after "can/could/may" and its subject ("Can the city of Rivergrove tow a
    car …" → "tow"), after "allowed/legal to" or after "let/allow me". The subject is
    skipped as a pronoun or as the words up to the first base-form verb (lemminflect's
    lexicon) that does not follow a determiner or a preposition, at most
    :data:`MAX_SUBJECT_WORDS`; names (capitalised) never end it. "" for a
    :data:`LIGHT_VERBS` verb ("put", "run": the object names the act)."""
    m = _PERMISSION_OPENING_RE.search(clause)
    if not m:
        return ""
    words = _CLAUSE_WORD_RE.findall(m.group("act") or m.group("obj") or "")
    verb = words[0].lower() if words else ""
    if m.group("rest"):
        verb = _verb_after_subject(m.group("rest"))
    return _act(clause, verb)


def _verb_after_subject(text: str) -> str:
    """The verb of ``text``, which opens with the subject of a modal ("the city of
    Rivergrove tow a car …" → "tow"): after a pronoun subject, else the first base-form
    verb (lemminflect's lexicon) that does not follow a determiner or a preposition,
    within :data:`MAX_SUBJECT_WORDS`; names (capitalised) never end the subject. ""
    when there is none."""
    words = _CLAUSE_WORD_RE.findall(text)
    if words and words[0].lower() in _SUBJECT_PRONOUNS:
        return words[1].lower() if len(words) > 1 else ""
    for before, word in itertools.pairwise(words[:MAX_SUBJECT_WORDS + 1]):
        if word[0].islower() and before.lower() not in _NOT_BEFORE_VERB and _base_verb(word):
            return word
    return ""


_EXPIRES_RE = re.compile(r"\bexpir(?:e|es|ed|ing)\b", re.I)
_AWAITED_RE = re.compile(r"\b(?:wait|waits|waiting)\b.{0,40}?\b(?:before|until|prior to)\s+"
                         r"(?:(?:i|we|you|they|he|she|it|someone|one)\s+(?:can|could|may)\s+)?([a-z]+)\b",
                         re.I)


# "how many days does a district get to finish …", "how long do I have to register …",
# "how quickly must a bank investigate …", "how much notice does a landlord have to give
# to end …": the act the period is given for.
_GIVEN_TIME_RE = re.compile(
    r"\bhow\s+(?:long|soon|quickly|fast|much\s+(?:time|(?:advance\s+)?notice|warning|lead\s+time)"
    r"|many\s+(?:\w+\s+)?(?:days|weeks|months|years|hours))\b"
    r".{0,60}?\b(?:(?:have|has|get|gets|need|needs)\s+to\s+(?P<verb>[a-z]+)\b"
    r"|(?:must|should|shall)\s+(?P<rest>.+)$)", re.I)


def _act(clause: str, verb: str, written: str = "") -> str:
    """``verb`` as the act a clause asks about, or "" when it carries too little to
    require: a light verb, no verb in its base form, or a phrasal verb the lexicon does
    not know ("call off an international money transfer": requiring "call" would demand
    a word the rule on cancelling does not hold). ``written``: the verb as the clause
    writes it ("calling"), when not its base form."""
    if not verb or not _base_verb(verb):
        return ""
    after = re.search(rf"\b{re.escape(written or verb)}\s+([a-z]+)", clause, re.I)
    particle = after.group(1).lower() if after else ""
    if verb in LIGHT_VERBS:
        # "look into an error" (investigate), "take down a sign" (remove): a light verb
        # whose phrase the lexicon knows names the act; alone it says too little.
        return verb if particle and has_phrase(f"{verb} {particle}") else ""
    if particle in PHRASAL_PARTICLES and not has_phrase(f"{verb} {particle}"):
        return ""
    return verb


# The purpose of a light verb or a wait: "give notice to end a rental", "wait to file".
_PURPOSE_RE = re.compile(r"\bto\s+([a-z]+)\b", re.I)


def deadline_verb(clause: str) -> str:
    """The act a deadline clause gives time for (lowercase, base form) or "": the act a
    wait runs to ("how long must they wait before calling again" → "call"), else the
    verb after "have/get/need to" or "must" in a how-long clause ("how many school days
    does a district get to finish …" → "finish"); after a light verb or "wait", the verb
    of its purpose ("how much notice does a landlord have to give to end a rental" →
    "end", "how long do I have to wait to file an appeal" → "file"). "" for a light
    verb. Without either, a clause that speaks of expiring asks how long a thing lasts
    ("how long is a tree-cutting permit good for before it expires" → "expire"), so an
    answer says when it expires, not a period given for something else ("report … within
    7 days after removal"); "how long do I have to renew it after it expires" → "renew"."""
    awaited = _AWAITED_RE.search(clause)
    if awaited:
        word = awaited.group(1).lower()
        verb = next(iter(getAllLemmas(word).get("VERB", ())), "") if word.endswith("ing") else word
        return _act(clause, verb, word)
    given = _GIVEN_TIME_RE.search(clause)
    if not given:
        return "expire" if _EXPIRES_RE.search(clause) else ""
    verb = (given.group("verb") or _verb_after_subject(given.group("rest"))).lower()
    if verb == "keep":  # "how long must we keep the file": a retention period, keeping is the act
        return verb
    purpose = _PURPOSE_RE.search(clause, given.end()) if verb in LIGHT_VERBS | {"wait"} else None
    return _act(clause, purpose.group(1).lower() if purpose else verb)


# "does he owe the company …", "must the landlord return …", "do we have to tell the Bureau …"
_AUXILIARY_RE = re.compile(r"\b(?:do|does|did|must|should|shall|can|could|may|will|would)\s+(?P<rest>.+)$",
                           re.I)
_OBJECT_END_RE = re.compile(r"[,;?]|\s(?:and|or|if|when|before|after|because)\s", re.I)


def act_parties(clause: str) -> tuple[str, str]:
    """(who acts, what the act is done to) in the act a question asks about: the words
    between the auxiliary and the act's verb, and the words after the verb up to the end
    of its clause; ("", "") when no act is read. "how much notice does the tenant owe the
    landlord?" → ("the tenant", "the landlord"); "does somebody have to tell the Bureau"
    → ("somebody", "the Bureau"). The act is the verb after an auxiliary ("does",
    "must", "can", …) and its subject (:func:`_verb_after_subject`); after "have/need/get
    to", the verb that follows. The Writer reads the parties named there against who
    acts in a sentence (``sessions.writer.answer_sentences``)."""
    auxiliary = _AUXILIARY_RE.search(clause)
    if not auxiliary:
        return "", ""
    rest = auxiliary.group("rest")
    verb = _verb_after_subject(rest)
    found = re.search(rf"\b{re.escape(verb)}\b", rest) if verb else None
    if found is None:
        return "", ""
    after = rest[found.end():]
    infinitive = re.match(r"\s+to\s+[A-Za-z'’-]+", after) if verb in ("have", "has", "need", "get") else None
    if infinitive:
        after = after[infinitive.end():]
    return rest[:found.start()].strip(), _OBJECT_END_RE.split(after, maxsplit=1)[0].strip()


def action_term(clause: str, terms: Sequence[Term],
                verb: str | None = None) -> tuple[Term | None, tuple[Term, ...]]:
    """(the act a permission clause asks about, the clause's terms) given its topic
    ``terms``: the term holding :func:`asked_verb`, with every phrasing that says the act.
    A phrasal verb split by its object ("ship the parts back") means what the phrase
    means ("return"), and its particle is no topic of its own; a term of the clause whose
    phrasings hold the act ("vacationers", a phrasing of "rent by the night") says it in
    its own words ("transient lodging"). The act's term in the returned terms carries the
    same phrasings. (None, ``terms``) when there is no act or it is no topic term.
    ``verb``: the act's verb when the caller read it (:func:`deadline_verb`)."""
    verb = asked_verb(clause) if verb is None else verb
    verb_stem = stem(verb) if verb else ""
    term = next((t for t in terms if verb_stem and verb_stem in t.stems), None)
    if term is None and verb_stem in SCAFFOLD and (verb_stem,) in lexicon_phrases():
        # A verb that is filler elsewhere ("keeps calling") is the act here ("how long
        # must we keep the file" → keep, retain, preserve).
        term = Term((verb_stem,), alternatives((verb_stem,)))
        terms = (term, *terms)
    if term is None:
        return None, tuple(terms)
    later = content_terms(clause[clause.lower().find(verb) + len(verb):])
    particles = [p for p in _PARTICLES if p in later and (verb_stem, p) in lexicon_phrases()]
    extra = [alt for p in particles for alt in alternatives((verb_stem, p))]
    extra += [alt for t in terms if t is not term and any(verb_stem in a for a in t.alternatives)
              for alt in t.alternatives]
    # "Can we stop or delay it?": either act answers, so the act is said in the other's words too.
    other = re.search(rf"\b{re.escape(verb)}\w*(?:\s+\w+){{0,3}}?,?\s+or\s+"
                      r"(?:at\s+(?:the\s+)?(?:very\s+)?least\s+)?(\w+)", clause, re.I)
    if other:
        said = stem(other.group(1).lower())
        extra += [alt for t in terms if t is not term and said in t.stems for alt in t.alternatives]
    action = Term(term.stems, tuple(dict.fromkeys(term.alternatives + tuple(extra))), term.weight, term.told)
    rest = tuple(action if t is term else t for t in terms if len(t.stems) > 1 or t.stems[0] not in particles)
    return action, rest


# A determiner or pronoun that points back ("those purchases", "that permit", "is that
# legal", "offer it?"), not "that" opening a clause ("show that the owner …", "something
# that's been submitted") nor the "it" of "is it legal to …".
_ANAPHOR_RE = re.compile(
    r"\b(?:those|these|such)\b"
    # "How many days does he have to file his appeal?": the appeal of the story's conviction.
    r"|\b(?:his|her|their)\s+(?!own\b)[a-z]+"
    r"|\b(?:that|this)\s+(?!(?:is|are|was|were|the|a|an|it|its|they|he|she|we|you|i|my|our|your|his|her|their"
    r"|there|if|when|no|not)\b)[a-z]+"
    r"|\b(?:that|this|it|them)\s*(?:[?.!,;]|$)"
    # "Is that its own crime?", "Does this count as …": the pronoun is the question's subject.
    r"|^\W*(?:is|was|does|did|can|could|would|will|isn't|doesn't|wouldn't)\s+(?:that|this)\b", re.I)


# A clause that asks about a thing of its own: "how many ways in and out …", "what
# paperwork …", not "how much is it" (the thing asked before).
_OWN_THING_ASKED_RE = re.compile(r"^\W*(?:and\s+)?(?:how\s+many|(?:what|which)"
                                 r"(?!\s+(?:is|are|was|were|does|do|did|about|else|if|happens)\b))"
                                 r"\s+[a-z]+", re.I)
# "…, and does anything have to go in with it?": an indefinite pronoun is the thing asked,
# whatever the kind of the clause.
_SOMETHING_ASKED_RE = re.compile(r"\b(?:anything|something|anyone|anybody|someone|somebody|what else)\b",
                                 re.I)


# A sentence opens with a capital, or, as staff type in a hurry, with a question word
# in lower case ("… in the public record. how do we shield the exhibit?").
_SENTENCE_RE = re.compile(r"(?<=[.?!])\s+(?=[A-Z\"“]|(?:how|what|when|where|which|who|why|can|could|may|must"
                          r"|do|does|did|is|are|will|would|should)\b)")
_ASKING_RE = re.compile(r"^\W*(?:what|how|when|where|who|whom|whose|which|why|whether|can|could|may"
                        r"|must|do|does|did|is|are|was|were|will|would|should|shall|has|have|had"
                        r"|am|if)\b", re.I)


_CONDITION_RE = re.compile(
    r"^\W*((?:if|when|once|after|before|since|while)\b.+?),\s+((?:what|how|when|where|who|which|why"
    r"|whether|can|could|may|must|do|does|did|is|are|will|would|should|am)\b.*)$", re.I | re.S)


def split_situation(question: str) -> tuple[str, str]:
    """(situation, question proper): the sentences told before the first sentence that
    asks (ends with "?" or opens like a question), and a leading condition of that
    sentence ("If a storm knocks a tree onto my house, what do I have to file?"). With no
    asking sentence, or nothing before it, the situation is empty."""
    sentences = _SENTENCE_RE.split(question.strip())
    for i, sentence in enumerate(sentences):
        if sentence.rstrip().endswith("?") or _ASKING_RE.match(sentence):
            told, asked = sentences[:i], " ".join(sentences[i:])
            condition = _CONDITION_RE.match(asked)
            if condition:
                told, asked = told + [condition.group(1)], condition.group(2)
            return " ".join(told), asked
    return "", question.strip()


# A question listed after another with a comma only ("At what point does the county
# treat it as junk, where would he be allowed to keep it, and …"): a question word with
# its verb. Not a relative clause ("the tenant, when the lease ends, …"), nor a verb with
# its subject, which follows an aside as often ("What permits, if any, do I need …",
# "How long, in days, does the tenant have …").
_LISTED_QUESTION_RE = re.compile(
    r",\s+(?=(?:how|what|when|where|whether)\s+(?:does|do|did|is|are|was|were|would|will|can|could|should|must"
    r"|much|many|long|often|soon)\b)", re.I)

# "At what point …", "Under which section …", "By when …": a question opened by a preposition.
_PREPOSITION_ASKING_RE = re.compile(
    r"^\W*(?:at|in|for|by|on|under|from|to|with|within) (?:what|which|whose|how|when)\b", re.I)


def clauses(question: str) -> list[str]:
    """The question split into clauses that each ask something (at least two words); a
    clause that asks splits again where a comma lists another question after it."""
    parts = []
    for part in _CLAUSE_RE.split(question):
        part = part.strip(" ,.?")
        asks = _ASKING_RE.match(part) or _PREPOSITION_ASKING_RE.match(part)
        parts += [p.strip(" ,.?") for p in _LISTED_QUESTION_RE.split(part)] if asks else [part]
    return [p for p in parts if len(tokenize(p)) >= 2] or [question.strip()]


def question_analyse(question: str, *, earlier: str = "") -> QuestionAnalysis:
    """Read ``question`` (plain text, any length) into a :class:`QuestionAnalysis`.

    The situation told before the question ("The homeowner let her policy lapse. What
    must the servicer do…?") is context: its terms join every facet at
    :data:`SITUATION_WEIGHT`. Each clause of the question proper is a facet; a clause
    without a kind cue of its own inherits the previous clause's kind; a clause with no
    topic term is merged into the one before it; later clauses share the first clause's
    terms at :data:`SITUATION_WEIGHT` ("How often can a homeowner hold a garage sale, and
    is a permit needed?"). ``earlier``: the question before it in a conversation, whose
    terms join the situation of a follow-up that names no topic of its own ("And how
    long does that take?"). Never raises; an empty question gives one general facet.
    """
    question = re.sub(r"\s+", " ", question).strip()  # long runs of spaces split slowly
    situation, asked = split_situation(question)
    facets: list[Facet] = []
    unread: set[int] = set()  # clauses asked in words CIQ cannot read (below)
    for clause in clauses(asked):
        kind = fact_kind(clause)
        # "When does the park close at night?": the time of day names the asked value
        # (a clock time: the "clock" unit), not a word the answer must repeat.
        skip = (TIME_OF_DAY if clause_unit(clause, kind) == "clock"
                else LEGALITY if kind == FactKind.PERMISSION else ())
        terms = topic_terms(clause, skip=skip)
        if facets and not terms:
            previous = facets[-1]
            kind = previous.kind if kind == FactKind.GENERAL else kind
            if (kind == previous.kind and _OWN_THING_ASKED_RE.match(clause)
                    or _SOMETHING_ASKED_RE.search(clause)):
                # "How much of the site has to stay open space, and how many ways in and out
                # does it need?", "…, and does anything have to go in with it?": a second
                # question in words that are all scaffold asks something CIQ cannot read.
                # As a facet of its own with no term, nothing addresses it, and the answer
                # says it was not found rather than passing the first clause's answer off as
                # the whole.
                unread.add(len(facets))
                facets.append(Facet(clause, kind, ()))
                continue
            facets[-1] = replace(previous, text=f"{previous.text}; {clause}")
            if kind != previous.kind:
                facets.append(Facet(clause, kind, previous.terms, refers_back=previous.refers_back))
            continue
        if facets and kind == FactKind.GENERAL:
            kind = facets[-1].kind
        action = None
        if kind == FactKind.PERMISSION:
            action, terms = action_term(clause, terms)
        elif kind == FactKind.DEADLINE and (verb := deadline_verb(clause)):
            action, terms = action_term(clause, terms, verb)
        measure = stated_measure(clause, situation) if kind not in _BOTH else ""
        facets.append(Facet(clause, kind, terms, focus_term(clause, terms), clause_unit(clause, kind),
                            key_terms(clause, terms), action, bool(situation and _ANAPHOR_RE.search(clause)),
                            measure, definiendum(clause)))
    if not facets:
        facets = [Facet(question.strip(), FactKind.GENERAL.value, ())]
    situation_terms = topic_terms(situation)
    if earlier and not any(f.terms for f in facets):
        situation, situation_terms = earlier, situation_terms + topic_terms(earlier)
    result = []
    for i, facet in enumerate(facets):
        if i in unread:
            result.append(facet)
            continue
        shared: dict[str, Term] = {}
        own = {t.key for t in facet.terms}
        for term in facets[0].terms if i else ():
            if term.key not in own:
                shared.setdefault(term.key, term.weighted(SITUATION_WEIGHT, shared=True))
        for term in situation_terms:
            if term.key not in own:
                shared.setdefault(term.key, term.weighted(SITUATION_WEIGHT, told=True))
        # A later clause shares the first clause's topic, and so its pointing back to the
        # story: "Is that a crime, and what class?" asks the class of *that* crime.
        refers_back = facet.refers_back or bool(i and facets[0].refers_back)
        result.append(replace(facet, terms=facet.terms + tuple(shared.values()), refers_back=refers_back))
    years = tuple(dict.fromkeys(YEAR_RE.findall(_EVENT_DATE_RE.sub(" ", question))))
    codes = tuple(dict.fromkeys(DISTRICT_CODE_RE.findall(question)))
    return QuestionAnalysis(question=question, kind=result[0].kind, facets=tuple(result),
                            years=years, situation=situation, codes=codes)
