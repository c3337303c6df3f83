"""How a legal sentence is read, for claim and evidence alike: its modality ("shall",
"may", "shall not", "need not", with phrases such as "is required to"), negation outside
modal phrases, the parties it names and the one that acts, and which sentence of an
evidence window carries a claim. Used by the clash checks (:mod:`verification.clash`) and
the classifier's features (:mod:`verification.features`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ciq.text import STOPWORDS, TOKEN_RE
from verification.evidence import split_sentences, token_offsets, token_term, tokens_terms
from verification.lexicon import MODAL_PHRASES, NEGATION, PHRASES

# Roles that laws and contracts give parties; with capitalised names, the parties.
ROLE_WORDS = frozenset(
    """landlord tenant lessor lessee licensor licensee buyer seller purchaser vendor
    employer employee borrower lender creditor debtor servicer applicant requester
    requestor consumer issuer bureau director attorney counsel mayor council city county
    state commission committee authority governor court judge company contractor
    distributor supplier manufacturer customer client owner agency department board
    officer institution party parties disclosing receiving recipient indemnifying
    indemnified individual user provider""".split()
)
# The two names non-disclosure agreements give each of their roles: one party whichever
# the contract uses (ContractNLI's hypotheses, Koreeda & Manning 2021, say "Receiving
# Party" for the contract's "Recipient").
ROLE_NAMES = (("receiving party", "recipient"), ("disclosing party", "discloser"))
_NEG_RE = re.compile(
    r"\b(?:not|no|never|none|nothing|neither|nor|cannot|without|n't|exclude|excludes|"
    r"excluded|unless)\b|n't\b", re.IGNORECASE)
_MODAL_OF = dict(MODAL_PHRASES)
# Longest phrase first, so "shall have the right" is read before "shall".
_PHRASES = sorted((p for p, _ in MODAL_PHRASES), key=len, reverse=True)
_MODAL_RE = re.compile(r"(?<![\w'])(" + "|".join(re.escape(p) for p in _PHRASES) + r")(?![\w'])")
_MULTIWORD_MODAL_RE = re.compile(
    r"(?<![\w'])(" + "|".join(re.escape(p) for p in _PHRASES
                              if " " in p or p in ("cannot", "can't", "won't")) + r")(?![\w'])"
)


def modal_of(text: str) -> tuple[str, str]:
    """The claim's or sentence's first modality — "must", "may", "must_not", "need_not"
    or "" — and the words that say it (longest phrase at the first position)."""
    m = _MODAL_RE.search(" ".join(text.lower().split()))
    return (_MODAL_OF[m.group(1)], m.group(1)) if m else ("", "")


def modals(text: str, scope: Collection[str] | None = None) -> list[str]:
    """Every modality of ``text`` in order (see :func:`modal_of`), e.g. ["must_not", "must"]
    for "a home that cannot meet the code has to be removed". With ``scope`` (a claim's
    terms), only the modal verbs that govern the claim's words: one of the next two
    content terms is in ``scope`` (in "X shall pay … and shall not enter into Y" only the
    first governs a claim about paying)."""
    low = " ".join(text.lower().split())
    return [_MODAL_OF[m.group(1)] for m in _MODAL_RE.finditer(low) if _governs(low, m.end(), scope)]


def _governs(low: str, end: int, scope: Collection[str] | None) -> bool:
    if scope is None:
        return True
    return any(t in scope for t in terms(low[end : end + 80])[:2])


def negations(text: str) -> int:
    """Negation words in ``text`` outside modal phrases ("not more than" counts)."""
    return len(_NEG_RE.findall(_MULTIWORD_MODAL_RE.sub(" ", text.lower())))


_QUANTITY_NEG_RE = re.compile(
    r"\b(?:not|no)\s+(?:more|less|later|earlier|fewer|greater|sooner|smaller|larger|shorter|longer)\s+than\b")
# A price of nothing ("at no additional cost", "without charge") negates nothing.
_PRICE_NEG_RE = re.compile(r"\b(?:at no (?:additional |extra )?(?:charge|cost|expense)|no charge"
                           r"|without (?:charge|cost))\b")
# A phrase the lexicon reads as one word ("without authorization": "unauthorized").
_PHRASE_NEG_RE = re.compile(
    r"\b(?:" + "|".join(re.escape(p) for p, _ in PHRASES if NEGATION & set(p.split()))
    + r")\b")
# "No. 16" is a number, not a negation.
# "Fails to respond" is "does not respond" ("failure to" likewise): Black's Law Dictionary,
# "failure": "an omission of an expected action".
_POLARITY_RE = re.compile(
    r"\b(?:not|no(?!\.\s*\d)|never|none|nothing|neither|nor|cannot|without"
    r"|fail(?:s|ed|ure)?\s+to)\b|n't\b")


def negative(text: str, scope: Collection[str] | None = None) -> bool:
    """Whether ``text`` is negative: a negative modal phrase ("shall not", "need not") or a
    negation word outside modal phrases, leaving out bounds ("not more than 30 days", "no
    later than"), conditions ("unless"), prices of nothing ("at no cost") and numbers
    ("No. 16"). "Does not apply" and "shall
    not be applicable" are both negative. With ``scope`` (a claim's terms) only negations
    that govern the claim's words count (see :func:`modals`): "(ii) a decision not to
    enter into a relationship" does not negate "to return the information within five
    days" in the same sentence."""
    low = " ".join(text.lower().split())
    if any(m in ("must_not", "need_not") for m in modals(low, scope)):
        return True
    rest = low
    for phrases in (_MULTIWORD_MODAL_RE, _QUANTITY_NEG_RE, _PHRASE_NEG_RE, _PRICE_NEG_RE):
        rest = phrases.sub(" ", rest)
    return any(_governs(rest, m.end(), scope) for m in _POLARITY_RE.finditer(rest))


def terms(text: str) -> list[str]:
    """Comparison terms of ``text`` in order (stopwords and modal words left out)."""
    return [t for t in tokens_terms([tok for tok, _ in token_offsets(text)]) if t]


def parties(text: str) -> list[str]:
    """The comparison terms of the parties ``text`` names (:func:`mentions`), in order
    of first mention."""
    return list(dict.fromkeys(t for m in mentions(text) for t in sorted(m.terms)))


# Parties by office, beyond ROLE_WORDS, that rules and contracts name as actors.
OFFICE_WORDS = frozenset(
    """official officials body office registry recorder executive agent adviser advisor
    arbitrator member members complainant developer representative trustee guarantor
    operator carrier association corporation partnership bank broker dealer collector
    insurer insured beneficiary holder pilot planner manager administrator secretary
    treasurer clerk engineer inspector examiner subscriber franchisee franchisor
    sponsor""".split()
)
_PARTY_WORDS = ROLE_WORDS | OFFICE_WORDS | {w + "s" for w in ROLE_WORDS | OFFICE_WORDS}
_JOIN_WORDS = frozenset({"of", "and", "for", "&"})
# A passive verb right after the modal ("shall be sent", "may be granted", "are appointed").
_PASSIVE_RE = re.compile(r"^\s*(?:\w+\s+)?(?:be|been|is|are|was|were)\s+(?:\w+ly\s+)?"
                         r"(\w+(?:ed|en|wn|nt|id|ld))\b", re.IGNORECASE)
_BY_PASSIVE_RE = re.compile(r"\b(?:be|been|is|are|was|were)\s+(\w+(?:ed|en|wn))\b(?=\s+by\b)", re.IGNORECASE)
_PARENTHETICAL_RE = re.compile(
    r"^\s*(?:at|in|on|upon|with|without|for|by|after|before|within|subject|notwithstanding|however"
    r"|thereafter|also|then|if|unless|except|where|when|as|to)\b", re.IGNORECASE)
_BY_AGENT_WINDOW = 40  # characters after the participle in which "by X" names its agent
# Participles coordinated with the first ("shall not be assigned, transferred, shared or
# divided … by MORPHO"): the "by" agent is read after the last of them.
_MORE_PARTICIPLES_RE = re.compile(
    r"^(?:\s*,?\s*(?:and/or\s+|and\s+|or\s+)?(?:\w+ly\s+)?\w+(?:ed|en|wn|nt|id|ld)\b)*",
    re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    """A party named in a sentence: its words, its comparison terms ("Planning
    Commission" → {"plan", "commiss"}), where it starts and ends (character offsets)."""

    words: str
    terms: frozenset[str]
    start: int
    end: int

    def same(self, other: Mention) -> bool:
        """Whether the two mentions name the same party (the terms of one hold the
        other's: "the Commission" and "the Planning Commission"; not "City Council" and
        "Park Advisory Council")."""
        return self.terms <= other.terms or other.terms <= self.terms


@lru_cache(maxsize=4096)
def mentions(text: str) -> tuple[Mention, ...]:
    """The parties ``text`` names, in order: runs of capitalised words (not a sentence's
    first word unless in capitals; "of"/"and" may join two: "Department of Aviation")
    and role or office words ("tenant", "official"). A name followed by "'s" is a
    modifier of what follows ("the state's official"), not a party. Cached: a claim
    and its evidence sentence are read several times per verdict."""
    out: list[Mention] = []
    run: list[tuple[str, int, int]] = []

    def flush() -> None:
        while run and run[-1][0] in _JOIN_WORDS:
            run.pop()
        words = " ".join(tok for tok, _, _ in run)
        for role, name in ROLE_NAMES:
            words = words.replace(role, name)
        found = frozenset(t for t in (token_term(tok) for tok in words.split()) if t)
        if found and not run[-1][0].endswith(("'s", "’s")):
            out.append(Mention(text[run[0][1]:run[-1][2]], found, run[0][1], run[-1][2]))
        run.clear()

    for i, (tok, off) in enumerate(token_offsets(text)):
        raw = TOKEN_RE.match(text, off).group()  # the written token: a folded one may differ in length
        name = raw[:1].isupper() and (i > 0 or raw.isupper()) and tok not in STOPWORDS and len(tok) > 1
        role = tok in _PARTY_WORDS
        if name or role or (run and tok in _JOIN_WORDS and raw[:1].islower()):
            if run and text[run[-1][2]:off].strip():  # punctuation between: a new mention
                flush()
            run.append((tok, off, off + len(raw)))
            if role and not name:
                flush()
        elif run:
            flush()
    if run:
        flush()
    return tuple(m for m in out if not all(t[0].isdigit() for t in m.terms))


@dataclass(frozen=True)
class Roles:
    """Who acts in a sentence and towards whom: the ``agent`` (the subject of the modal
    verb read, or the "by" agent of a passive; None when unstated) and the ``objects``
    (the parties named after the verb, up to the next modal verb: "inform the Bureau",
    "notice to Tripath")."""

    agent: Mention | None
    objects: tuple[Mention, ...]


def roles(text: str, scope: Collection[str] | None = None) -> Roles:
    """The :class:`Roles` of one sentence, read around its first modal verb ("shall",
    "may", "will", "is required to", …; with ``scope``, a claim's terms, the first that
    governs them, see :func:`modals`) or, with none, its first passive verb with "by".
    The agent is the first party of the main clause before the verb (after the last
    comma, so "Should Licensor become aware …, Licensor shall report" reads the second),
    or the party after "by" within :data:`_BY_AGENT_WINDOW` characters of a passive
    participle or of the last participle coordinated with it ("must be filed by the
    complainant", "shall not be assigned, transferred or divided in any manner by
    MORPHO"); a passive with no "by" has no stated agent."""
    low = " ".join(text.split())
    lower = low.lower()
    found = mentions(low)
    verbs = list(_MODAL_RE.finditer(lower))
    governing = [m for m in verbs if _governs(lower, m.end(), scope)]
    passives = list(_BY_PASSIVE_RE.finditer(low))
    # "members to be appointed by the mayor": a passive of the claim's verb is read
    # before a modal verb that governs none of the claim's words.
    scoped = [m for m in passives if scope is not None and token_term(m.group(1).lower()) in scope]
    if governing or (verbs and not scoped):
        modal = (governing or verbs)[0]
        at, phrase_end = modal.start(), modal.end()
        passive = _PASSIVE_RE.match(low[phrase_end:])
        verb_end = phrase_end
        if passive:
            verb_end += passive.end()
            verb_end += _MORE_PARTICIPLES_RE.match(low[verb_end:]).end()
    elif scoped or passives:
        passive = (scoped or passives)[0]
        at, verb_end = passive.start(), passive.end()
    else:
        return Roles(None, ())
    clause_end = next((m.start() for m in verbs if m.start() > verb_end), len(low))
    objects = tuple(m for m in found if verb_end <= m.start < clause_end)
    if passive:
        agent = _by_agent(low, objects, verb_end, _BY_AGENT_WINDOW)
        return Roles(agent, tuple(m for m in objects if m is not agent))
    comma = low.rfind(",", 0, at)
    before = [m for m in found if m.end <= at]
    main = [m for m in before if m.start > comma]
    # "The Company, at its option, may …": a phrase between commas leaves the subject
    # before it; "When a peace officer asks, a scrap metal business must …" has a
    # subject of its own that names no party, so no agent is read.
    if not main and (not terms(low[comma + 1:at]) or _PARENTHETICAL_RE.match(low[comma + 1:at])):
        main = before
    if not main:  # "Excite will pay Client …": a sentence's first word is its subject
        first = re.match(r"^\W*([A-Z][\w'’-]+)\s*$", low[:at])
        if first and first.group(1).lower() not in STOPWORDS:
            term = token_term(first.group(1).lower())
            main = [Mention(first.group(1), frozenset({term}), first.start(1), first.end(1))] if term else []
    return Roles(main[0] if main else None, objects)


def _by_agent(low: str, found: Sequence[Mention], end: int, window: int) -> Mention | None:
    """The party of ``found`` right after "by (the)" within ``window`` characters of
    ``end`` in ``low``, or None."""
    by = re.match(rf"^.{{0,{window}}}?\bby\s+(?:the\s+|its\s+|an?\s+)?", low[end:], re.IGNORECASE | re.S)
    return next((m for m in found if by and m.start == end + by.end()), None)


def by_agents(text: str) -> dict[str, Mention]:
    """The agents of the passive verbs of ``text`` that name one ("to be appointed by the
    mayor" → {"appoint": mayor}), by the participle's comparison term."""
    low = " ".join(text.split())
    found = mentions(low)
    agents: dict[str, Mention] = {}
    for m in _BY_PASSIVE_RE.finditer(low):
        agent = _by_agent(low, found, m.end(), 1)
        verb = token_term(m.group(1).lower())
        if agent is not None and verb:
            agents.setdefault(verb, agent)
    return agents


def best_sentence(claim_terms: set[str], window_text: str) -> str:
    """The sentence of ``window_text`` holding the largest share of ``claim_terms``."""
    best, best_score = window_text, -1.0
    for s, e in split_sentences(window_text):
        body = window_text[s:e]
        found = set(terms(body))
        score = len(claim_terms & found) / (len(claim_terms) or 1)
        if score > best_score:
            best, best_score = body, score
    return best


