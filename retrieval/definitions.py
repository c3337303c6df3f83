"""The term a definition question asks about, and the sentences that define it (issue 9).

"What counts as 'residuals' that either side can use freely?", "How does the agreement
define an affiliate?", "What makes a hotel count as 'extended stay'?": each asks what one
term (the *definiendum*) means. The document answers in a defining sentence whose subject
is that term ("The term "Residuals" means any information retained in the unaided
memories …"), whatever other words of the question it repeats: the relative clause of the
question ("that either side can use freely") describes the term in the asker's words,
which the definition need not share. A question whose term no document defines is still
declined: only a sentence that defines the term itself stands in for the question's other
words (:func:`retrieval.relevance.sentence_relevance`).
"""

from __future__ import annotations

import re

from ciq.text import content_terms

_QUOTED = r"[\"'“‘](?P<q>[^\"'”’]{1,60})[\"'”’]"
# Up to four words, ended by a word that starts what describes or places the term.
_WORDS = (r"(?P<w>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
          r"(?=\s+(?:that|which|who|whom|under|in|for|to|when|if|and|or|so|by|on|at|with|from|of the)\b"
          r"|\s*[,?.;:]|\s*$)")
_TERM = rf"(?:an?\s+|the\s+)?(?:{_QUOTED}|{_WORDS})"
_ASKS_RE = [re.compile(p, re.I) for p in (
    rf"\bwhat (?:counts|qualifies|passes) as {_TERM}",
    rf"\bwhat (?:is|'s|are) meant by {_TERM}",
    rf"\bwhat (?:is|'s) the definition of {_TERM}",
    rf"\bwhat (?:does|do) (?:the (?:term|word|phrase) )?{_TERM} mean\b",
    rf"\bdefines? {_TERM}",
    rf"\bhow (?:is|are) {_TERM} defined\b",
    rf"\bwhat makes (?:[\w'-]+ ){{1,5}}(?:count|qualify) as {_TERM}",
    rf"\b(?:counts?|qualif(?:y|ies)) as (?:an?\s+|the\s+)?{_QUOTED}",
    # "What does the agreement treat as protected information", "when does the county
    # treat a vehicle as inoperable": what makes a thing one of those.
    rf"\b(?:treats?|regards?|considers?|deems?) (?:[\w'-]+ ){{0,4}}?as {_TERM}",
)]
# Words that frame a definition question, never the term itself.
_NOT_A_TERM = frozenset(content_terms("it this that they them one something anything "
                                      "these those what which term word phrase"))
# A defining verb after its subject, an optional parenthesis between ("Residuals" (as
# defined below) means …).
_DEFINING_RE = re.compile(
    r"[\"”’']?\s*(?:\([^)]{0,80}\)\s*)?,?\s*\b(?:shall mean|means|mean|(?:is|are|shall be) defined as"
    r"|(?:has|have) the meaning|(?:shall )?refers? to|shall include|includes?|is any|are any|is an?)\b",
    re.I)
# The subject of a defining sentence comes first: at most this many words before its verb.
SUBJECT_WORDS = 12


def definiendum(clause: str) -> tuple[str, ...]:
    """The Porter stems of the term a definition clause asks about ("what counts as
    'residuals'" → ("residu",)), () when the clause names none."""
    text = clause.replace("’", "'")
    for pattern in _ASKS_RE:
        m = pattern.search(text)
        if m:
            stems = tuple(s for s in content_terms(m.group("q") or m.group("w") or "")
                          if s not in _NOT_A_TERM)
            if stems:
                return stems
    return ()


def defines(text: str, term: tuple[str, ...]) -> bool:
    """Whether ``text`` is a sentence defining ``term`` (its Porter stems): a defining verb
    ("means", "is defined as", "includes", …) within the first :data:`SUBJECT_WORDS` words,
    whose subject holds every stem of the term ("The term "Residuals" means …",
    ""Residual Information" shall mean …")."""
    if not term:
        return False
    for m in _DEFINING_RE.finditer(text):
        subject = text[:m.start()]
        if len(subject.split()) > SUBJECT_WORDS:
            return False
        if set(term) <= set(content_terms(subject)):
            return True
    return False
