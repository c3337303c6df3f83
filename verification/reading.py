"""How a legal sentence is read, for claim and evidence alike: its modality ("shall",
"may", "shall not", "need not", with phrases such as "is required to"), negation outside
modal phrases, the parties it names and the one that acts, and which sentence of an
evidence window carries a claim. Used by the clash checks (:mod:`verification.clash`) and
the classifier's features (:mod:`verification.features`).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ciq.text import STOPWORDS
from verification.evidence import split_sentences, token_offsets, token_term
from verification.lexicon import MODAL_PHRASES

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
    r"\b(?:not|no)\s+(?:more|less|later|earlier|fewer|greater|sooner)\s+than\b")
# "No. 16" is a number, not a negation.
_POLARITY_RE = re.compile(
    r"\b(?:not|no(?!\.\s*\d)|never|none|nothing|neither|nor|cannot|without)\b|n't\b")


def negative(text: str, scope: Collection[str] | None = None) -> bool:
    """Whether ``text`` is negative: a negative modal phrase ("shall not", "need not") or a
    negation word outside modal phrases, leaving out bounds ("not more than 30 days", "no
    later than"), conditions ("unless") and numbers ("No. 16"). "Does not apply" and "shall
    not be applicable" are both negative. With ``scope`` (a claim's terms) only negations
    that govern the claim's words count (see :func:`modals`): "(ii) a decision not to
    enter into a relationship" does not negate "to return the information within five
    days" in the same sentence."""
    low = " ".join(text.lower().split())
    if any(m in ("must_not", "need_not") for m in modals(low, scope)):
        return True
    rest = _QUANTITY_NEG_RE.sub(" ", _MULTIWORD_MODAL_RE.sub(" ", low))
    return any(_governs(rest, m.end(), scope) for m in _POLARITY_RE.finditer(rest))


def terms(text: str) -> list[str]:
    """Comparison terms of ``text`` in order (stopwords and modal words left out)."""
    return [t for t in (token_term(tok) for tok, _ in token_offsets(text)) if t]


def parties(text: str) -> list[str]:
    """Parties named in order of first mention: role words and capitalised names (not the
    first word, not a stopword), as comparison terms."""
    out: list[str] = []
    for i, (tok, off) in enumerate(token_offsets(text)):
        raw = text[off : off + len(tok)]
        # A capitalised word is a name, except as a sentence's first word (unless in capitals).
        is_name = (raw[:1].isupper() and (i > 0 or raw.isupper()) and tok not in STOPWORDS
                   and len(tok) > 2)
        if tok in ROLE_WORDS or is_name:
            term = token_term(tok)
            if term and term not in out and not term[0].isdigit():
                out.append(term)
    return out


def acting_party(text: str) -> str | None:
    """The party acting: the last party before the modal, or the agent of a passive
    ("… shall be billed and collected by Lake Oswego")."""
    m = re.search(r"\bby (?:the |its |an? )?((?:[A-Z][\w'’]*\s?){1,3}|\w+)", text)
    modal, phrase = modal_of(text)
    low = text.lower()
    at = low.find(phrase) if phrase else -1
    if m and (at < 0 or m.start() > at) and re.search(r"\b(?:be|been|is|are)\s+\w+ed\b", low):
        found = parties(m.group(1)) or terms(m.group(1))
        if found:
            return found[0]
    head = text[:at] if at > 0 else text
    found = parties(head)
    return found[-1] if found else None


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


