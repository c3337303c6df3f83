"""Measures a question states and the thresholds that answer it (DESIGN.md §1
"answerability"; issue 9).

"Does a $600 equipment rental agreement have to be in writing?", "Do I need a permit for a
115-square-foot shed?", "She only helped originate four home loans. Does she have to
register?": a yes/no question that states a measure of its case asks whether the case
falls under a rule, and rules draw that line with a threshold in the same dimension
("$1,000 or more", "120 square feet", "five or fewer loans"). A sentence that states the
rule without its threshold ("a lease contract is not enforceable unless there is a
writing") cannot say which side of the line the case is on, so it does not answer.

:func:`stated_measure` reads the dimension of the first measure a question states (age,
money, height, size, period, count, tried in that order: "a 16-year-old" is an age before
it is a period, "$850 of electronics over two weeks" is about the money, "about 24 feet to
the peak" is a height); :func:`measure_present`
tells whether a sentence states a value of that dimension.
"""

from __future__ import annotations

import re

_WORD_NUMBERS = (r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
                 r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty"
                 r"|seventy|eighty|ninety|hundred")
# A number as written: digits, or a number word ("one" only before a unit, where it counts).
_NUMBER = rf"(?:\d[\d,]*(?:\.\d+)?|{_WORD_NUMBERS}|one)"
_PAREN = r"(?:\s*\(\s*\d[\d,./]*\s*\))?"  # "thirty (30) days", "one-half (1/2) hour"
_TIME_UNIT = r"(?:business |calendar |working |consecutive )?(?:days?|weeks?|months?|years?|hours?|minutes?)"
_AGE = rf"\b{_NUMBER}[\s-]+years?[\s-]+(?:old|of age)\b|\b{_NUMBER}-year-olds?\b"
_SIZE_UNIT = (r"(?:(?:square|sq\.?|linear)[\s-]+)?"
              r"(?:feet|foot|ft\.?|inches|inch|acres?|miles?|yards?|meters?|stories|story)")

# Values as a rule writes them, shared with the slot and unit patterns of
# :mod:`retrieval.relevance`: a number (digits, a number word, or "a"/"an": "a foot
# above"), an amount in another currency or in cents, a length, a size.
VALUE_NUMBER = (r"(?:\d[\d,]*(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
                r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty"
                r"|forty-five|fifty|sixty|seventy|eighty|ninety|hundred|a|an)")
# "7,000,000 USD", "EUR 50,000", "£500".
CURRENCY = (r"\b\d[\d,.]*\s*(?:USD|EUR|GBP|CAD|US\$)(?![a-z])|\b(?:USD|EUR|GBP|CAD|US\$)\s?\d"
            r"|[€£]\s?\d")
# "fifty (.50) cents per page", "25 cents", "10¢".
CENTS = rf"\b{VALUE_NUMBER}\s*(?:\(\.?\d+\)\s*)?cents?\b|\.\d+\)?\s*cents?\b|\d\s*¢"
_LENGTH_UNITS = r"(?:feet|foot|ft\.?|inches|inch|miles?|yards?|meters?|metres?|stories|storeys)"
_FEET_INCHES = r"|\d\s*(?:'|′|\")"
# A length ("6 feet", "two stories", 5'), and a size: a length or an area ("1,000 square
# feet", "9 acres").
_LENGTH = rf"\b{VALUE_NUMBER}(?:\s*\(\d+\))?[\s-]+(?:linear )?{_LENGTH_UNITS}\b{_FEET_INCHES}"
SIZE = (rf"\b{VALUE_NUMBER}(?:\s*\(\d+\))?[\s-]+(?:(?:square |sq\.? ?|linear )?{_LENGTH_UNITS}|acres?)\b"
        rf"{_FEET_INCHES}")
# A height: a length beside a word that makes it one ("not exceed six feet in height", "35
# feet above grade", "two stories"), not the 100 feet between a coop and a house.
HEIGHT_RE = re.compile(r"^(?=.*\b(?:height|high(?:er)?|tall(?:er)?|above|elevat\w*|stor(?:y|ies)|storeys?)\b)"
                       rf".*?(?:{_LENGTH})", re.I | re.S)
_HEIGHT_WORD = r"(?:tall|high|in height|to the (?:peak|top|ridge))"
_UPRIGHT = r"(?:fences?|walls?|hedges?|towers?|poles?|flagpoles?|antennas?|masts?)\b"
# Words that follow a number without being what it counts ("12 U.S.C. 5108 and …").
_NOT_COUNTED = (r"(?:and|or|of|to|in|on|at|by|for|the|a|an|through|is|are|was|were|shall|may|must|will|be"
                r"|from|with)\b")

# dimension → (what a question states, what a sentence must state)
_DIMENSIONS: dict[str, tuple[re.Pattern, re.Pattern]] = {
    "age": (re.compile(_AGE, re.I),
            re.compile(rf"{_AGE}|\bage (?:of )?\d+|\b(?:under|over|below|above|at least) "
                       r"(?:the age of \d+|\d+ years)\b|\b(?:minors?|adults?|juveniles?)\b", re.I)),
    "money": (re.compile(rf"\$\s?\d|\b{_NUMBER}\s+dollars?\b", re.I),
              re.compile(rf"\$\s?\d|\b{_NUMBER}{_PAREN}\s+dollars?\b|{CURRENCY}|{CENTS}", re.I)),
    # "about 24 feet to the peak", "how tall … 30 feet", and the length of a thing that
    # stands up ("a 6-foot fence", "a 60-foot tower"), which is its height
    "height": (re.compile(rf"\b{_NUMBER}[\s-]+(?:feet|foot|ft|stories|story)\b[^.?!]{{0,25}}?\b{_HEIGHT_WORD}"
                          rf"|\b{_NUMBER}[\s-]+(?:feet|foot|ft)[\s-]+(?:[a-z]+[\s-]+)?{_UPRIGHT}"
                          rf"|\b(?:tall|high|height)\b[^.?!]{{0,25}}?\b{_NUMBER}[\s-]+(?:feet|foot|ft)\b",
                          re.I),
               HEIGHT_RE),
    "size": (re.compile(rf"\b{_NUMBER}[\s-]+{_SIZE_UNIT}\b", re.I),
             re.compile(SIZE, re.I)),
    "period": (re.compile(rf"\b{_NUMBER}[\s-]+{_TIME_UNIT}\b(?![\s-]+(?:old|of age))", re.I),
               re.compile(rf"\b(?:{_NUMBER}|a|an|one-half|half(?: an?)?){_PAREN}[\s-]+"
                          rf"(?:or (?:more|less|fewer) )?{_TIME_UNIT}\b", re.I)),
    # A count of things: a number (not a year, not a section) before a plural noun. Number
    # words are matched lowercase only: "Sun Seven Stars" is a name.
    "count": (re.compile(rf"(?<![§.\d])\b(?:\d{{1,3}}(?:,\d{{3}})*|{_WORD_NUMBERS})\s+"
                         r"(?:[a-z-]+\s+){0,2}[a-z]+s\b"),
              # A number before a lowercase word it counts ("5 or fewer residential mortgage loans",
              # not "12 CFR", "(c)(2)", "U.S.C. 5108 and").
              re.compile(rf"(?<![§.\d(])\b(?:\d[\d,]*|(?i:{_WORD_NUMBERS}))\b(?![.)\d/]){_PAREN}"
                         rf"(?:\s+or (?:more|fewer|less))?[\s-]+(?!{_NOT_COUNTED})[a-z]")),
}

# A question that asks whether: it opens with an auxiliary ("Does …", "Is that allowed …").
_YES_NO_RE = re.compile(r"^\W*(?:do|does|did|is|are|was|were|can|could|may|must|will|would|should|shall"
                        r"|has|have|am)\b", re.I)


def stated_measure(clause: str, situation: str = "") -> str:
    """The dimension ("age", "money", "height", "size", "period", "count"; or "") of the first
    measure stated in a yes/no ``clause`` or in the ``situation`` told before it: the
    dimension a threshold that answers it is written in. A clause that does not ask
    whether (a what/how/when question) states none: it names the value it asks for."""
    if not _YES_NO_RE.match(clause):
        return ""
    text = f"{situation} {clause}"
    return next((name for name, (stated, _) in _DIMENSIONS.items() if stated.search(text)), "")


def measure_present(dimension: str, text: str) -> bool:
    """Whether ``text`` states a value of ``dimension`` (a name :func:`stated_measure` returns; ""
    asks for none and is always present). A count stated in the question ("two beehives",
    "four home loans") is answered by a count or by any other measure: the rule may draw
    its line elsewhere ("50 feet from property lines")."""
    if not dimension:
        return True
    if dimension == "count":
        return any(present.search(text) for _, present in _DIMENSIONS.values())
    return bool(_DIMENSIONS[dimension][1].search(text))
