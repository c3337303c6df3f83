"""Rule-based Skeptic: split the Writer's Markdown into atomic claims (DESIGN.md §1).

The embedded default has no model: claims are sentences (pysbd via ``ciq.text.sentence_spans``),
their type comes from surface rules, and substantive words are found with shape and
morphology heuristics instead of a part-of-speech tagger.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ciq.text import STOPWORDS, sentence_spans
from verification.citations import CITE_ID_RE, CITE_RE
from verification.lexicon import NUMBER_WORDS
from verification.models import ClaimType

HEADING_RE = re.compile(r"^[ \t]{0,3}(?:#{1,6}[ \t].*|#{1,6}|[=-]{3,}[ \t]*)$", re.MULTILINE)
BULLET_RE = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+")
REFUSAL = "not found in available sources"
# Template text a Writer adds around its claims (issue 9): the statement that the
# documents do not answer, the facets they leave open, what was searched, and the
# related passages shown beside a non-answer. None of it is a claim.
NOT_ANSWERED = "Not answered"
PARTIAL_GAP = "Not found in available sources"
SEARCHED = "Searched:"
RELATED_HEADING = "Related passages (not answering the question)"
NON_CLAIM_PREFIXES = (REFUSAL, NOT_ANSWERED.lower(), SEARCHED.lower(), "see the short answer")
# The template of a Draft memo (issue 13; ``sessions.memo``): the header block from the
# "MEMORANDUM" title to the first section, the sections that restate the request or list
# what is open or cited, a supersession note line, and the kind-and-issuer label of a
# permit item. None of it is a claim, for the embedded and the model Writers alike.
MEMO_HEADING = "MEMORANDUM"
MEMO_FIELDS = ("To", "From", "Date", "Re")
MEMO_SECTIONS = ("Question Presented", "Open questions", "Sources")
SUPERSEDED = "Superseded"
PERMIT_ISSUER = "issued by"
SEE_SHORT_ANSWER = "See the Short Answer"
_MEMO_START_RE = re.compile(rf"^\s*(?:#{{1,6}}[ \t]*)?\**{MEMO_HEADING}\**[ \t]*$", re.MULTILINE)
_SECTION_RE = re.compile(r"^(#{1,6})[ \t]*\**([^\n]*?)\**[ \t]*:?[ \t]*$", re.MULTILINE)
_SUPERSEDED_RE = re.compile(rf"^[ \t]*_?{SUPERSEDED}:[^\n]*$", re.MULTILINE)
_PERMIT_LABEL_RE = re.compile(
    rf"^([-*+][ \t]+)(\*\*[^*\n]{{1,60}}\*\* \({PERMIT_ISSUER} [^()\n]{{0,200}}\): )", re.MULTILINE)

# Importances of DESIGN.md §1.
PROPER_NOUN, NUMERAL, NOUN, VERB = 1.0, 0.95, 0.8, 0.7

# Numerals: money, percentages, section numbers, dates, plain numbers.
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
NUMERAL_RE = re.compile(
    rf"(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}})"
    r"|(?:\d{1,2}/\d{1,2}/\d{2,4})"
    r"|(?:§+\s*\d+[\w.\-]*(?:\([0-9a-zA-Z]+\))*)"
    r"|(?:\$\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|thousand))?)"
    r"|(?:\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|per cent\b))"
    r"|(?:\d[\d,]*(?:\.\d+)?(?:st|nd|rd|th)?)",
    re.IGNORECASE,
)
WORD_RE = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", re.UNICODE)

# Verbs a legal answer uses often; -ed/-ing/-ize/-ify morphology catches most others.
LEGAL_VERBS = frozenset(
    """
    apply applies approve approves be become becomes bring brings collect collects comply
    complies conduct conducts contact contacts disclose discloses file files get gets give
    gives grant grants hold holds include includes issue issues keep keeps make makes meet
    meets notify notifies obtain obtains operate operates pay pays permit permits prohibit
    prohibits receive receives register registers renew renews report reports require
    requires retain retains send sends serve serves submit submits take takes use uses
    violate violates apply need needs allow allows expire expires begin begins end ends
    can cannot
    """.split()
)
_MODALS = frozenset("shall must may will can should would could might cannot".split())
# Words that look like -ed/-ing verbs but are nouns in legal text.
NOT_VERBS = frozenset("need hundred thing nothing something anything building proceeding".split())

_HEDGE_RE = re.compile(
    r"\b(?:i think|i believe|we believe|in my (?:view|opinion)|should consider|"
    r"likely|unlikely|probably|possibly|perhaps|appears?|seems?|arguably|may wish|"
    r"it is advisable|recommend(?:ed|s)?)\b",
    re.IGNORECASE,
)
_COMPARATIVE_RE = re.compile(
    r"\b(?:more|less|fewer|greater|higher|lower|larger|smaller|longer|shorter|earlier|later"
    r"|better|worse|\w+er)\s+than\b|\b(?:exceeds?|exceeding|at least|at most|no more than"
    r"|no less than|compared (?:to|with)|as \w+ as)\b",
    re.IGNORECASE,
)
_CAUSAL_RE = re.compile(
    r"\b(?:because|due to|results? in|resulting in|therefore|thus|hence|consequently|"
    r"as a result|leads? to|caus(?:e|es|ed|ing)|owing to|so that)\b",
    re.IGNORECASE,
)
_TEMPORAL_RE = re.compile(
    rf"\b(?:within|after|before|until|by|no later than|not later than|prior to)\s+"
    r"(?:\w+\s+){0,2}(?:\(\d+\)\s+)?(?:calendar\s+|business\s+)?"
    r"(?:days?|weeks?|months?|years?|hours?)\b"
    rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}\b|\b(?:1[89]|20)\d\d\b|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}"
    r"|\b(?:annually|monthly|weekly|daily|deadline|effective date|expires?|expiration)\b",
    re.IGNORECASE,
)
_NUMERIC_RE = re.compile(
    r"\d|\$|%|\bpercent\b|\b(?:" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_POLICY_RE = re.compile(
    r"\b(?:must|shall|may not|must not|cannot|required|requires?|prohibit(?:s|ed)?|"
    r"forbid(?:s|den)?|mandatory|obligat(?:ed|ion|ory)|permit(?:s|ted)?|allowed|unlawful|"
    r"illegal|entitled)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ClaimDraft:
    """One atomic claim as the Skeptic found it.

    ``text`` is the sentence with its ``[cite:…]`` markers removed and whitespace trimmed;
    ``span`` is ``[start, end)`` in the text given to :meth:`RuleSkeptic.extract`, covering
    the sentence and any markers attached to it; ``cited_chunk_ids`` are the 12-hex ids of
    those markers in order of appearance (no duplicates); ``substantive_words`` pairs each
    word with its DESIGN.md §1 importance (proper noun 1.0, numeral 0.95, noun 0.8, verb 0.7).
    """

    text: str
    type: str
    span: tuple[int, int]
    cited_chunk_ids: tuple[str, ...]
    substantive_words: tuple[tuple[str, float], ...]


def claim_type(text: str) -> str:
    """The :class:`ClaimType` value of one claim sentence, by surface rules (DESIGN.md §1).

    Precedence: opinion (hedges), comparative, causal, temporal, numeric, policy
    (modality), factual. Temporal wins over numeric because "within 30 days" is a deadline.
    """
    if _HEDGE_RE.search(text):
        return ClaimType.OPINION.value
    if _COMPARATIVE_RE.search(text):
        return ClaimType.COMPARATIVE.value
    if _CAUSAL_RE.search(text):
        return ClaimType.CAUSAL.value
    if _TEMPORAL_RE.search(text):
        return ClaimType.TEMPORAL.value
    if _NUMERIC_RE.search(text):
        return ClaimType.NUMERIC.value
    if _POLICY_RE.search(text):
        return ClaimType.POLICY.value
    return ClaimType.FACTUAL.value


def _looks_like_verb(lower: str) -> bool:
    if lower in LEGAL_VERBS:
        return True
    if lower in NOT_VERBS or len(lower) < 5:
        return False
    return lower.endswith(("ed", "ing", "ize", "izes", "ise", "ify", "ifies"))


def substantive_words(text: str) -> tuple[tuple[str, float], ...]:
    """``((word, importance), ...)`` for one claim sentence, in text order, one entry per word.

    Heuristics instead of a POS tagger (DESIGN.md §1 importances): numerals (money, percent,
    §-numbers, dates, number words) 0.95; acronyms and capitalised words that do not start
    the sentence 1.0; verb-looking words 0.7; other non-stopwords of two or more letters 0.8.
    A word seen twice keeps its first form and highest importance.
    """
    found: dict[str, tuple[str, float, int]] = {}

    def add(word: str, importance: float, pos: int) -> None:
        key = word.lower()
        prev = found.get(key)
        if prev is None or importance > prev[1]:
            found[key] = (prev[0] if prev else word, importance, prev[2] if prev else pos)

    taken: list[tuple[int, int]] = []
    for m in NUMERAL_RE.finditer(text):
        add(re.sub(r"\s+", " ", m.group().strip()), NUMERAL, m.start())
        taken.append(m.span())
    first_word = True
    after_modal = False
    for m in WORD_RE.finditer(text):
        word = m.group()
        if any(s <= m.start() < e for s, e in taken):
            continue
        lower = word.lower()
        initial = first_word
        first_word = False
        # The word after a modal ("shall publish", "may not be") is a verb.
        verb_slot = after_modal
        if lower in _MODALS:
            after_modal = True
        elif not (lower in ("not", "be", "also", "only") or lower.endswith("ly")):
            after_modal = False
        if lower in NUMBER_WORDS:
            add(word, NUMERAL, m.start())
            continue
        if lower in STOPWORDS or len(word) < 2:
            continue
        # A capitalised first word is a name when the next word is too ("Malcolm Smith").
        nxt = WORD_RE.match(text, m.end() + 1) if initial else None
        name_start = bool(nxt and nxt.group()[0].isupper() and nxt.group().lower() not in STOPWORDS)
        acronym = len(word) >= 2 and word.isupper()
        if acronym or (word[0].isupper() and (not initial or name_start)):
            add(word, PROPER_NOUN, m.start())
        elif verb_slot or _looks_like_verb(lower):
            add(word, VERB, m.start())
        else:
            add(word, NOUN, m.start())
    ordered = sorted(found.values(), key=lambda item: item[2])
    return tuple((word, importance) for word, importance, _ in ordered)


# A single newline inside a paragraph (soft wrap), not one before a list item or a heading.
SOFT_WRAP_RE = re.compile(r"(?<=\S)[ \t]*\n(?![ \t]*(?:\n|[-*+•][ \t]|\d{1,3}[.)][ \t]|#|$))")


def _blank(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` blanked, newlines kept (offsets stay valid)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def _section_end(text: str, heading: re.Match) -> int:
    """Where the section under ``heading`` ends: the next heading of the same or a
    higher level, or the end of the text."""
    level = len(heading.group(1))
    end = re.search(rf"^#{{1,{level}}}[ \t]", text[heading.end():], re.MULTILINE)
    return heading.end() + end.start() if end else len(text)


def _is_declined(text: str) -> bool:
    """Whether ``text`` says first that the documents do not answer: a "Not answered"
    answer, or a memo whose Short Answer opens so."""
    if text.lstrip().startswith(NOT_ANSWERED):
        return True
    short = re.search(r"^#{1,6}[ \t]*Short Answer[ \t]*\n\s*", text, re.MULTILINE | re.IGNORECASE)
    return bool(short and text[short.end():].startswith(NOT_ANSWERED))


def memo_header_end(text: str) -> int | None:
    """Where a memo's header block ends (a character offset into ``text``), or ``None``
    when ``text`` is no memo: it must open with a "MEMORANDUM" title line ("# MEMORANDUM",
    "**MEMORANDUM**"), and the header (title, To / From / Date / Re) runs to the first
    "#" or "##" heading after it, or to the end. The one reading of "is this a memo" for
    the Skeptic, the exports and the memo rubric."""
    start = _MEMO_START_RE.match(text)
    if not start:
        return None
    first = re.search(r"^#{1,2}[ \t]", text[start.end():], re.MULTILINE)
    return start.end() + first.start() if first else len(text)


def template_masked(text: str) -> str:
    """``text`` with its template blanked (same length, newlines kept, so offsets stay
    valid): the memo header (from a "MEMORANDUM" title line at the start to the first
    "## " heading), the sections of :data:`MEMO_SECTIONS` (case-insensitive), the
    supersession note lines, the permit labels "**Permit** (issued by …): ", and, in a
    declined text (:func:`_is_declined`), the :data:`RELATED_HEADING` section."""
    end = memo_header_end(text)
    if end is not None:
        text = _blank(text, 0, end)
    sections = {name.lower() for name in MEMO_SECTIONS}
    if _is_declined(text):
        sections.add(RELATED_HEADING.lower())
    for heading in list(_SECTION_RE.finditer(text)):
        title = re.sub(r"\s+", " ", heading.group(2)).strip().lower()
        if title in sections:
            text = _blank(text, heading.start(), _section_end(text, heading))
    text = _SUPERSEDED_RE.sub(lambda m: " " * len(m.group()), text)
    return _PERMIT_LABEL_RE.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)


def _mask_headings(text: str) -> str:
    # Same length, so sentence offsets stay valid in the original text. pysbd ends a
    # sentence at every newline, so soft-wrapped lines are joined with spaces first.
    masked = HEADING_RE.sub(lambda m: " " * len(m.group()), text)
    return SOFT_WRAP_RE.sub(lambda m: " " * len(m.group()), masked)


class RuleSkeptic:
    """Claims from the Writer's Markdown, one per sentence (DESIGN.md §1, embedded default).

    Headings, blank lines, bullet markers, the refusal sentence "Not found in available
    sources.", the template lines of :data:`NON_CLAIM_PREFIXES` and everything under the
    :data:`RELATED_HEADING` section are not claims. A ``[cite:ID]`` marker belongs to the
    sentence it ends, also when it comes after that sentence's final period (pysbd then
    starts the next sentence with it). About 1–3 ms for a one-page answer, most of it pysbd.
    """

    def extract(self, text: str) -> list[ClaimDraft]:
        """Split ``text`` into :class:`ClaimDraft` objects, in text order. Never raises."""
        # Template (memo header and sections, related passages of a "Not answered"
        # text) is blanked; the claims keep their offsets in the original text.
        text = template_masked(text)
        masked = _mask_headings(text)
        pieces: list[list] = []  # [start, end, ids]
        for start, end in sentence_spans(masked):
            segment = text[start:end]
            # Markers that open a sentence close the previous one (same paragraph only).
            lead = re.match(r"(?:\s*" + CITE_RE.pattern + r")+", segment)
            if lead and pieces and "\n\n" not in text[pieces[-1][1]:start]:
                ids = [i.lower() for i in CITE_ID_RE.findall(lead.group())]
                pieces[-1][2].extend(ids)
                pieces[-1][1] = start + lead.end()
                start += lead.end()
                while start < end and text[start].isspace():
                    start += 1
                segment = text[start:end]
            if not segment.strip():
                continue
            ids = [
                i.lower() for m in CITE_RE.finditer(segment) for i in CITE_ID_RE.findall(m.group())
            ]
            pieces.append([start, end, ids])

        claims: list[ClaimDraft] = []
        for start, end, ids in pieces:
            raw = text[start:end]
            bullet = BULLET_RE.match(raw)
            if bullet:
                start += bullet.end()
                raw = raw[bullet.end():]
            clean = re.sub(r"\s+", " ", CITE_RE.sub(" ", raw)).strip()
            clean = re.sub(r"\s+([.,;:!?])", r"\1", clean)
            if not clean or not re.search(r"\w", clean):
                continue
            if clean.lower().rstrip(". ").startswith(NON_CLAIM_PREFIXES):
                continue
            claims.append(
                ClaimDraft(
                    text=clean,
                    type=claim_type(clean),
                    span=(start, end),
                    cited_chunk_ids=tuple(dict.fromkeys(ids)),
                    substantive_words=substantive_words(clean),
                )
            )
        return claims
