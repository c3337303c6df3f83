"""Pinpoint citations: a chunk's place inside its document, the way a lawyer cites it.

A document's ``citation_label`` names the whole part or chapter ("12 CFR Part 1006
(Regulation F)", "ORS ch. 837 (2021 ed.)"); the pinpoint adds where in it the passage
sits, from the chunk's section heading and pages (issue 13, item 2):

==========================  ============================================================
source                      pinpoint (``bluebook`` style, the default)
==========================  ============================================================
CFR rule section            ``12 CFR § 1006.8`` (from "§ 1006.8 Revocation of exemption.")
CFR official interpretation ``12 CFR pt. 1005, Supp. I, § 1005.36`` (eCFR heads the rule's
                            sections "§ 1005.36 …" and Supplement I's "Section 1005.36 …")
CFR appendix, subpart       ``12 CFR pt. 1030, app. C``; ``12 CFR pt. 1011, subpt. B``
ORS section                 ``ORS 837.380`` (from "837.380 Registration …")
ordinance, regulation       ``Rivergrove Ord. No. 54-89C § 8.070``, ``… § (K)``, ``… § XII``,
                            ``Rivergrove Charter (1974) ch. VI``, ``Ray County … § 100.5``
contract                    ``Services And Hosting Agreement § 7.2, p. 4`` (a contract is
                            cited by its title, cut before "between"; ``art. IV``,
                            ``sched. 1``, ``ex. A`` for its other parts)
no section number           ``Rivergrove Council Minutes 2018-08-13, “UNFINISHED
                            BUSINESS”, pp. 3–4``: the heading, shortened, in quotes
heading path                ``12 CFR pt. 1005, Supp. I, § 1005.20, “2. Examples”``: the
                            enclosing section, then the chunk's own heading
==========================  ============================================================

Which numbers count as the section depends on the kind of document, because the same
shape means different things: a bare "2." opens a numbered clause of a contract but a
comment paragraph in a CFR supplement or a list item in a county code (whose parent
section the chunk does not name); "Section 5.080 of the RLDO …" or "Section 2.1
hereof" refers to another provision (a lower-case word or a comma follows the
number), and "Sec. 4." in an ORS chapter is a session-law note, not an ORS section.
Such headings are quoted instead, so every heading reaches the pinpoint either as a
section number or as text; only a heading that repeats the document's own title
("NON-DISCLOSURE AGREEMENT", "ORDINANCE NO. 88-2017") is left to the document's name.

``Chunk.heading`` is one line, the heading in force, so a chunk under a lettered or
numbered subheading ("B. Use Regulations", a CFR comment "2. Examples") is cited by that
subheading alone; given a heading path the enclosing section is cited too.

The ``plain`` style is "Title, heading, p. N" (the parts that exist).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.conf import settings
from django.db import models

from retrieval.models import JurisdictionLevel, page_label

# A heading quoted in a pinpoint is cut to this many characters (at a word, with "…").
HEADING_CHARS = 60
# A contract's title (its name in a pinpoint) is cut to this many characters.
TITLE_CHARS = 60


class CitationStyle(models.TextChoices):
    """``settings.CITATION_STYLE``."""

    BLUEBOOK = "bluebook", "Bluebook-like: 12 CFR § 1006.8; Hosting Agreement § 7.2, p. 4"
    PLAIN = "plain", "Plain: Title, heading, p. N"


# A section number: 1006.8, 72A.2030, 5.1-3, 7.3.1, 2.040(h), 12; roman numerals aside.
_NUMBER = r"\d+[A-Za-z]?(?:[.\-–]\d+[A-Za-z]?)*(?:\([A-Za-z0-9]{1,4}\))*"
_ROMAN = r"[IVXLC]+\b"
_SECTION_RE = re.compile(
    rf"^(?:§§?\s*|(?:SECTIONS?|Sections?|SEC\.|Sec\.)\s+)({_NUMBER}|{_ROMAN})\.?\s*"
    r"(?:\[[^\]]*\]\.?\s*)?(?=(.?))")  # "Section 6.02 [Termination for Bankruptcy]."
# Named divisions and their Bluebook abbreviations.
_DIVISIONS = {
    "article": "art.", "chapter": "ch.", "subchapter": "subch.", "part": "pt.",
    "subpart": "subpt.", "appendix": "app.", "supplement": "Supp.", "schedule": "sched.",
    "exhibit": "ex.", "annex": "annex", "title": "tit.", "item": "item",
}
_DIVISION_RE = re.compile(
    r"^(?i:(" + "|".join(_DIVISIONS) + r"))\s+"
    r"((?:\d+[A-Za-z]?(?:[.\-]\d+)*|[IVXLC]+|[A-Z](?:-\d+)?)(?:\([A-Za-z0-9]{1,4}\))*)(?!\w)"
    r"(?:\s+(?i:to\s+part)\s+(\d+))?(?=\s*(.?))"
)
# "Appendix to Part 1016—Model Privacy Form": an appendix without a letter.
_BARE_APPENDIX_RE = re.compile(r"^appendix\s+to\s+part\s+(\d+)", re.IGNORECASE)
# ORS 837.380: chapter, a dot, three or four digits.
_ORS_RE = re.compile(r"^(\d{1,3}[A-C]?\.\d{3,4})\b(?!\.\d)")
# 7.2 Term / 5.1-3 Utilities / 13.9. No Waiver / 100.5 Historic Preservation.
_DOTTED_RE = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){1,3}(?:-\d{1,3})?)\.?(?=\s+[\"“(\[A-Z])")
# (d) / (K) / (iii) at the start.
_PAREN_RE = re.compile(r"^(\((?:[A-Za-z]{1,2}|\d{1,2}|[ivxl]{1,5})\))(?=\s|$)")
# A contract's numbered clause: "7. Termination." / "8) The undertakings …".
_CLAUSE_RE = re.compile(r"^(\d{1,2})[.)](?=\s+[\"“(\[A-Z])")
# An enumerator in front of a heading, kept when the heading is quoted.
_ENUMERATOR_RE = re.compile(r"^(?:\(?[0-9A-Za-z]{1,4}[.)]|\d+(?:\.\d+)+\.?|\([0-9A-Za-z]{1,4}\))\s+")
# The end of a heading's title where its body follows on the same line.
_TITLE_END_RE = re.compile(r"[a-z0-9)\]”\"'’][.;](?=\s+\S)")
_LETTER_RE = re.compile(r"[^\W\d_]")

_CFR_RE = re.compile(r"^\s*(\d+)\s+(C\.?\s?F\.?\s?R\.?)(?=\s|$)")
_CFR_PART_RE = re.compile(r"\b(?:Part|pt\.)\s+(\d+)", re.IGNORECASE)
_ORS_LABEL_RE = re.compile(r"^\s*(ORS|Or\.\s?Rev\.\s?Stat\.)(?=\s|$)")
_DASH_RE = re.compile(r"\s+[—–-]\s+")
_LABEL_SECTION_RE = re.compile(r"\s*§.*$")
_CONTRACT_NAME_RE = re.compile(r"\s+(?:by\s+and\s+between|between|among|by\s+and\s+among)\s+",
                               re.IGNORECASE)

_TRAILING_PAREN_RE = re.compile(r"\s*\([^()]*\)\s*$")
_PLACEHOLDER_RE = re.compile(r"\{\{\s*filled:\s*([^}]*)\}\}|\{\{[^}]*\}\}")
_MARKUP_RE = re.compile(r"\*\*|__|`|^(?:>\s*|#{1,6}\s+)+|\|")
_RULE_RE = re.compile(r"(?:^|\s)[-_=–—]{4,}(?=\s|$)")
_SPACE_RE = re.compile(r"\s+")
_WORD_CHAR_RE = re.compile(r"\w")
_WORDS_RE = re.compile(r"\w+")


# A cited sentence is found in its chunk by all its words, else (the Critic may shorten
# the end) by its first words; markup and line breaks between the words are ignored.
LOCATE_WORDS = 8


def sentence_offset(text: str, sentence: str) -> int | None:
    """Where ``sentence`` begins in ``text`` (a character offset) or ``None``: all its
    words, lowercased, found as consecutive words of ``text``, else its first
    :data:`LOCATE_WORDS` (so two sentences that open alike are told apart when quoted
    whole); Markdown markup, list markers and line breaks between them do not matter."""
    words = [w.lower() for w in _WORDS_RE.findall(sentence)]
    if not words:
        return None
    matches = list(_WORDS_RE.finditer(text))
    joined = f' {" ".join(m.group().lower() for m in matches)} '
    for wanted in (words, words[:LOCATE_WORDS]):
        at = joined.find(f' {" ".join(wanted)} ')  # whole words only
        if at >= 0:
            return matches[joined.count(" ", 1, at + 1)].start()
    return None


def pinpoint_label(*, citation_label: str | None, title: str | None,
                   jurisdiction_level: str | None, heading: str | Sequence[str] | None,
                   page_start: int | None = None, page_end: int | None = None,
                   style: str | None = None) -> str:
    """The pinpoint citation of a chunk: its document, its section and its pages.

    ``citation_label`` and ``title`` are the document's (``Document.citation_label``,
    ``Document.title``), ``jurisdiction_level`` a :class:`JurisdictionLevel` value,
    ``heading`` the chunk's section heading (``Chunk.heading``, "" if none) or a heading
    path, outermost first (``["Section 1005.3 Coverage", "2. Examples"]``: the innermost
    heading that names a section is cited, followed by the chunk's own heading in
    quotes when that one names none). Pages are 1-based or ``None``. ``style`` is a
    :class:`CitationStyle` value, by default ``settings.CITATION_STYLE`` ("bluebook"
    when unset). The rules are in the module docstring. Never raises for odd input
    (``None`` counts as empty); an unknown style raises ``ValueError``. Returns "" only
    when every input is empty.
    """
    style = CitationStyle(style or getattr(settings, "CITATION_STYLE", CitationStyle.BLUEBOOK))
    label, title = _line(citation_label), _line(title)
    path = [heading] if heading is None or isinstance(heading, str) else list(heading)
    headings = [h for h in (_heading_clean(h or "") for h in path) if h]
    own = headings[-1] if headings else ""
    pages = page_label(page_start, page_end)
    if style == CitationStyle.PLAIN:
        trail = " › ".join(_heading_short(h) for h in headings)
        return ", ".join(p for p in (title or label, trail, pages) if p)
    private = jurisdiction_level == JurisdictionLevel.PRIVATE
    name = (_contract_name(title) or label) if private else (label or _contract_name(title))
    cite = ""
    for depth, text in enumerate(reversed(headings)):
        cite = _section_cite(label, name, text, private=private)
        if cite:
            if depth:  # an enclosing section: the chunk's own heading follows
                cite = ", ".join(p for p in (cite, _quoted(own, name, title)) if p)
            break
    if not cite:
        cite = ", ".join(p for p in (name, _quoted(own, name, title)) if p)
    return ", ".join(p for p in (cite, pages) if p)


def _section_cite(label: str, name: str, heading: str, *, private: bool) -> str:
    """The document's citation narrowed to the section ``heading`` names, by the kind
    of document the label shows (CFR, ORS, any other); "" when it names none."""
    cfr, ors = _CFR_RE.match(label), _ORS_LABEL_RE.match(label)
    if cfr:
        return _cfr_pinpoint(cfr, label, heading)
    if ors:
        match = _ORS_RE.match(heading)
        return f"{ors.group(1)} {match.group(1)}" if match else ""
    return _local_pinpoint(name, heading, private=private)


def _cfr_pinpoint(cfr: re.Match, label: str, heading: str) -> str:
    """``12 CFR § 1006.8``, ``12 CFR pt. 1005, Supp. I, § 1005.36``, ``12 CFR pt. 1030,
    app. C``; "" when the heading names no rule section, part, subpart, appendix or
    supplement (a comment paragraph "2. …", an appendix item "XXV. …")."""
    code = f"{cfr.group(1)} {cfr.group(2)}"
    part = _CFR_PART_RE.search(label)
    whole = f"{code} pt. {part.group(1)}" if part else code
    section = _section(heading)
    if section:
        number, word = section
        if word == "§":
            return f"{code} § {number}"
        # eCFR heads Supplement I's commentary on a section "Section 1005.36 …".
        return f"{code} pt. {number.split('.')[0]}, Supp. I, § {number}" if "." in number else ""
    division = _division(heading)
    if division:
        kind, number, of_part = division
        if kind == "pt.":
            return f"{code} pt. {number}"
        base = f"{code} pt. {of_part}" if of_part else whole
        return f"{base}, {kind} {number}".rstrip()
    bare = _BARE_APPENDIX_RE.match(heading)
    return f"{code} pt. {bare.group(1)}, app." if bare else ""


def _local_pinpoint(name: str, heading: str, *, private: bool) -> str:
    """``Rivergrove Ord. No. 54-89C § 8.070``, ``… § (K)``, ``… ch. VI``, ``Hosting
    Agreement § 7.2``; "" when the heading carries no number of the document's own."""
    section = _section(heading)
    number = section[0] if section else ""
    division = None if number else _division(heading)
    if division:
        kind, value, _ = division
        return f"{name} {kind} {value}".strip()
    if not number:
        for pattern in (_DOTTED_RE, _PAREN_RE) + ((_CLAUSE_RE,) if private else ()):
            match = pattern.match(heading)
            if match:
                number = match.group(1)
                break
    if not number:
        return ""
    # A label that already names a section ("Rivergrove Café Ord. § 7.2") gives way to
    # the chunk's own.
    return f"{_LABEL_SECTION_RE.sub('', name)} § {number}".strip()


def _section(heading: str) -> tuple[str, str] | None:
    """(number, "§" or "Section") when ``heading`` opens with the document's own section
    designator; ``None`` when it opens with none, or with a reference to another
    provision ("Section 5.080 of the RLDO", "Section 2.1 hereof", "Section 3, chapter
    544", "Section 7.2.1 [Advertising Revenue], a …")."""
    match = _SECTION_RE.match(heading)
    if not match:
        return None
    follow = match.group(2)
    if follow == "," or follow.islower():
        return None
    return match.group(1), "§" if heading.startswith("§") else "Section"


def _division(heading: str) -> tuple[str, str, str] | None:
    """(abbreviation, number, part or "") for "ARTICLE IV", "Appendix C to Part 1030—…",
    "Subpart B—…", "CHAPTER VI - ELECTIONS", "Schedule 1"; ``None`` otherwise, and for a
    reference ("Part 1 of this …") or an SEC exhibit number ("EXHIBIT 10.25")."""
    match = _DIVISION_RE.match(heading)
    if not match or match.group(4).islower() or match.group(4) == ",":
        return None
    kind = _DIVISIONS[match.group(1).lower()]
    if kind == "ex." and "." in match.group(2):
        return None
    return kind, match.group(2), match.group(3) or ""


def _contract_name(title: str) -> str:
    """A contract's short name: its title up to "between" (the parties), at most
    ``TITLE_CHARS`` characters ("Services And Hosting Agreement"); a long title loses
    its trailing parentheticals first ("NON-DISCLOSURE AGREEMENT (Yale University …)")."""
    name = _CONTRACT_NAME_RE.split(title, maxsplit=1)[0].strip(" ,;:")
    while len(name) > TITLE_CHARS and _TRAILING_PAREN_RE.search(name):
        name = _TRAILING_PAREN_RE.sub("", name)
    return _clip(name, TITLE_CHARS)


def _heading_clean(heading: str) -> str:
    """``heading`` on one line without Markdown or table markup, ruler lines or the
    corpus's placeholders ("{{filled:52}}" → "52"); "" when no word is left."""
    text = _PLACEHOLDER_RE.sub(lambda m: m.group(1) or "", heading)
    text = _MARKUP_RE.sub(" ", text)
    text = _RULE_RE.sub(" ", _SPACE_RE.sub(" ", text))
    text = _SPACE_RE.sub(" ", text).strip(" .,;:-–—_")
    return text if _WORD_CHAR_RE.search(text) else ""


def _heading_short(heading: str) -> str:
    """The heading's title (before its body, when the body follows on the same line),
    at most ``HEADING_CHARS`` characters: "2. Fund transfers not covered"."""
    enumerator = _ENUMERATOR_RE.match(heading)
    start = enumerator.end() if enumerator else 0
    for end in _TITLE_END_RE.finditer(heading, start):
        if len(_LETTER_RE.findall(heading, start, end.start() + 1)) >= 3:
            heading = heading[: end.start() + 1]
            break
    return _clip(heading.rstrip(" .:;"), HEADING_CHARS)


def _quoted(heading: str, name: str, title: str) -> str:
    """The heading, shortened, in quotes; "" when it is the document's own title line,
    which the document's name already stands for ("NON-DISCLOSURE AGREEMENT" of
    "NON-DISCLOSURE AGREEMENT (3M Company)", "ORDINANCE NO. 88-2017" of "City of
    Rivergrove Ordinance No. 88-2017 — Docks (2017)"). A party's name (after "between"
    or in the trailing parentheses) is no title line: it heads a signature block."""
    short = _heading_short(heading)
    if not short:
        return ""
    words = _words(short)
    names = (_unparenthesised(name), _unparenthesised(_CONTRACT_NAME_RE.split(title, maxsplit=1)[0]))
    # The title line ends the name ("City of Rivergrove Ordinance No. 88-2017 — Docks");
    # a section titled "NON-DISCLOSURE" in a "… NON-DISCLOSURE AGREEMENT" does not.
    if len(words.split()) >= 2 and any(_words(part).endswith(words) for text in names
                                       for part in (text, *_DASH_RE.split(text))):
        return ""
    return f"“{short}”"


def _unparenthesised(text: str) -> str:
    while _TRAILING_PAREN_RE.search(text):
        text = _TRAILING_PAREN_RE.sub("", text)
    return text


def _words(text: str) -> str:
    """The words of ``text``, case-folded, each between spaces (for whole-word search)."""
    return " " + " ".join(_WORDS_RE.findall(text.casefold())) + " " if text else ""


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:—–-") + "…"


def _line(text: str | None) -> str:
    return _SPACE_RE.sub(" ", text or "").strip()
