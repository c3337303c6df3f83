"""The months a question asks about, and whether a rule's season covers them.

A rule may hold for part of the year only: "From May through October, the park and river
access shall be open from 8:00 am to 9:00 pm" and "From November through April … 8:00
pm". A question about "a July evening" is answered by the first and not by the second,
although both hold every word of it but the month. So when the question names a month or
a season and a sentence states a range of months, the sentence addresses the question
only if its range covers one of the asked months (:func:`season_fits`), just as a
sentence must speak to the year a question names (``retrieval.relevance``).

Only ranges are read ("May through October", "from November 1 to April 30", "between
June and August"): a single date ("by January 31") is a deadline, not a season. The
seasons are the meteorological ones of the northern hemisphere (summer = June, July and
August; NOAA / WMO usage), which the corpus's jurisdictions all are.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ciq.text import stem

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
SEASONS: dict[str, frozenset[int]] = {
    "winter": frozenset({12, 1, 2}), "spring": frozenset({3, 4, 5}),
    "summer": frozenset({6, 7, 8}), "fall": frozenset({9, 10, 11}),
    "autumn": frozenset({9, 10, 11}),
}
_ABBREVIATED = r"|".join(rf"{m[:3]}(?:{m[3:]}|\.)?" if len(m) > 3 else m for m in MONTHS)
_DAY = r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?"
# "May through October", "November 1 to April 30", "between June and August", "Jan.–Mar."
RANGE_RE = re.compile(
    rf"\b({_ABBREVIATED}){_DAY}\s*(?:through|thru|to|until|till|and|-|–|—)\s*({_ABBREVIATED})\b", re.I)
# Month names as a question uses them: capitalised, and "May" only where it cannot be the
# verb ("in May", "May 3"): "May I launch a canoe…" asks no month.
_ASKED_MONTH_RE = re.compile(
    r"\b(January|February|March|April|June|July|August|September|October|November|December)\b"
    r"|\b(?:in|of|during|since|by|until|through|early|late|mid|this|last|next) (May)\b|\b(May)(?= \d)")
# "in the fall", "this fall", "fall season": the noun, not "falls under".
_ASKED_SEASON_RE = re.compile(
    r"\b(winter|spring|summer|autumn)s?\b|\b(?:the|this|last|next|in|early|late) (fall)\b"
    r"|\b(fall) (?:season|months)\b",
    re.I)


def _month(word: str) -> int:
    return next(i for i, m in enumerate(MONTHS, 1) if m.startswith(word.lower().rstrip(".")[:3]))


@lru_cache(maxsize=1024)
def asked_months(question: str) -> frozenset[int]:
    """Months (1–12) the question asks about: the months it names and the months of the
    seasons it names; empty when it names none."""
    months = {_month(next(g for g in m.groups() if g)) for m in _ASKED_MONTH_RE.finditer(question)}
    for match in _ASKED_SEASON_RE.finditer(question):
        months |= SEASONS[next(g for g in match.groups() if g).lower()]
    return frozenset(months)


def month_ranges(text: str) -> list[frozenset[int]]:
    """The ranges of months ``text`` states, each as its months (1–12, inclusive, wrapping
    over the new year: "November through April" → {11, 12, 1, 2, 3, 4})."""
    ranges = []
    for match in RANGE_RE.finditer(text):
        first, last = _month(match.group(1)), _month(match.group(2))
        span = (last - first) % 12
        ranges.append(frozenset((first - 1 + i) % 12 + 1 for i in range(span + 1)))
    return ranges


def season_fits(asked: frozenset[int], text: str) -> bool:
    """Whether ``text`` may answer a question about the months ``asked``: True unless the
    question names months and every range of months ``text`` states misses them all."""
    ranges = month_ranges(text) if asked else []
    return not ranges or any(asked & r for r in ranges)


def in_season(asked: frozenset[int], text: str) -> frozenset[str]:
    """Porter stems of the month names among ``asked`` that a range of ``text`` covers
    ("a July evening" and "From May through October" → {"juli"}): the question's month is
    said by the range, though not in its words."""
    covered = asked.intersection(frozenset().union(*month_ranges(text))) if asked else frozenset()
    return frozenset(stem(MONTHS[m - 1]) for m in covered)
