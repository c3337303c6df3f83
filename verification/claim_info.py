"""Claim analysis for the Judge: :class:`ClaimInfo` (slots, weights, stance, anchor and
scope of one claim sentence), built by :func:`claim_info` (cached per claim text), and the
stance and exception detection that the clash checks apply to evidence too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ciq.text import TOKEN_RE
from verification.evidence import (
    Quantity,
    outside_phrases,
    phrase_positions,
    quantities,
    token_offsets,
    token_term,
    tokens_terms,
)
from verification.lexicon import (
    EXCEPTION,
    HEDGES,
    LIGHT_WORDS,
    NEGATION,
    OBLIGATION,
    PERMISSION,
    PROHIBITION,
    RESTRICTIVE,
)

# --------------------------------------------------------------------------------------
# Claim analysis


@dataclass(frozen=True)
class ClaimInfo:
    """What the Judge needs to know about one claim sentence: its content-word slots and
    their weights, the names and numbers that must be grounded, and its stance."""

    groups: tuple[tuple[str, ...], ...]  # alternatives per slot: "return or destroy" is one slot
    labels: tuple[str, ...]          # the claim's word for each slot (for reasoning)
    prior: tuple[float, ...]         # weight multiplier per slot
    numeric: tuple[bool, ...]        # slot is a number
    grounded: frozenset[str]         # terms of names and numbers the evidence must contain
    quantities: tuple[Quantity, ...]
    stance: str                      # oblige | permit | prohibit | neg | assert | restrict
    anchor: str | None               # the predicate term the modality attaches to
    predicate: str | None            # the anchor, or the first past-tense verb ("hosted")
    restrictive: bool
    scope_slots: frozenset[int]      # slots after "only"/"solely" (the restricted scope)
    hedged: bool
    word_terms: tuple[tuple[str, ...], ...]   # terms of each substantive word

    @property
    def terms(self) -> tuple[str, ...]:
        return tuple(t for g in self.groups for t in g)


_DEONTIC = OBLIGATION | PERMISSION | NEGATION | PROHIBITION
_MODAL_WORDS = _DEONTIC | RESTRICTIVE | {"be", "been", "is", "are", "also"}


def stance_of(tokens: Sequence[str], exception_after: bool) -> str:
    """The deontic stance of a token sequence: "restrict" (only / except), "prohibit",
    "neg", "oblige", "permit" or "assert". Compared between claim and evidence to find
    modality and negation clashes ("must" vs "may", "may not" vs "may")."""
    kept = _either_way(outside_phrases(tokens))
    toks = set(kept) - PROHIBITION - _OBLIGING_PARTICIPLES | prohibitions(kept) | obligations(kept)
    neg = bool(toks & NEGATION) or bool(toks & PROHIBITION)
    oblige = bool(toks & OBLIGATION)
    permit = bool(toks & PERMISSION)
    if toks & RESTRICTIVE:
        return "restrict"
    if neg and exception_after:
        return "restrict"
    if neg and (oblige or permit or toks & PROHIBITION):
        return "prohibit"
    if neg:
        return "neg"
    if oblige:
        return "oblige"
    if permit:
        return "permit"
    return "assert"


_BE = frozenset("be is are was were been being".split())
# Participles of obligation: "is required to" obliges, "the disclosures required by
# § 1005.20" only names them (a reduced relative clause, as in :func:`prohibitions`).
_OBLIGING_PARTICIPLES = frozenset("required obligated obliged".split())


def obligations(tokens: Sequence[str]) -> set[str]:
    """The participles of obligation in ``tokens`` that oblige: after a form of "be" (two
    tokens back at most: "is hereby required"). After a noun a participle describes it
    ("the notice required by this section"): it obliges nothing in this sentence."""
    return {tok for i, tok in enumerate(tokens)
            if tok in _OBLIGING_PARTICIPLES and set(tokens[max(0, i - 2):i]) & _BE}


def _either_way(tokens: list[str]) -> list[str]:
    """``tokens`` with the "not" of "may or may not" dropped: "Businesses may or may not be
    open to the public" permits both, and prohibits nothing."""
    out: list[str] = []
    for i, tok in enumerate(tokens):
        if tok == "not" and tokens[max(0, i - 3):i] == ["may", "or", "may"]:
            continue
        out.append(tok)
    return out
# After a prohibition participle, words that make it a predicate ("prohibited from").
_PREDICATE_AFTER = frozenset("from to by under in unless except".split())


def prohibitions(tokens: Sequence[str]) -> set[str]:
    """The prohibition words of ``tokens`` that prohibit: verbs ("refrain", "prohibits")
    and participles used as predicates, after a form of "be" ("is prohibited", "are
    hereby forbidden") or before their complement ("barred from", "restricted to"). A
    participle before its noun is an adjective that describes it ("restricted use
    obligations", "any prohibited assignment … shall be void"): it prohibits nothing
    (Quirk et al., *A Comprehensive Grammar of the English Language*, 1985, ch. 7,
    participial adjectives; Garner's Modern English Usage, "participles")."""
    found = set()
    for i, tok in enumerate(tokens):
        if tok not in PROHIBITION:
            continue
        participle = tok.endswith(("ed", "en"))
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if (not participle or set(tokens[max(0, i - 2) : i]) & _BE or after is None
                or after in _PREDICATE_AFTER):
            found.add(tok)
    return found


def _defined_role(raw: Sequence[str], i: int) -> bool:
    """Whether token ``i`` of the claim's tokens ``raw`` belongs to a capitalised role name
    of a contract ("Receiving Party", "Disclosing Party", "the Parties"): a label each
    contract defines in its own words ("Recipient", "Investor"; Adams, *A Manual of Style
    for Contract Drafting*, defined terms for the parties)."""
    word = raw[i]
    nxt = raw[i + 1] if i + 1 < len(raw) else ""
    return word[:1].isupper() and (word in ("Party", "Parties") or nxt in ("Party", "Parties"))


# The end of an item of "A, B or C": at most one more word, then a comma or the "or".
_LIST_ITEM_END_RE = re.compile(r"(?:\s+[\w'’-]+)?\s*(?:,|\bor\b|\band/or\b)")
EXCEPTION_RE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in EXCEPTION) + r")\b")


@lru_cache(maxsize=8192)
def claim_info(text: str, words: tuple[tuple[str, float], ...]) -> ClaimInfo:
    """Slots, weights, stance and anchor of one claim sentence (cached on its text)."""
    matches = list(TOKEN_RE.finditer(text))
    raw = [m.group() for m in matches]
    toks = [t.lower() for t in raw]
    terms = tokens_terms(toks)
    depth, in_parens = 0, []
    last = 0
    for m in matches:
        gap = text[last : m.start()]
        depth = max(0, depth + gap.count("(") - gap.count(")"))
        in_parens.append(depth > 0)
        last = m.end()

    # Slots: one per content word, except that "A or B" / "A, B or C" share a slot.
    slot_of: dict[str, int] = {}
    groups: list[list[str]] = []
    labels: list[str] = []
    prior: list[float] = []
    first_pos: list[int] = []
    # The "without" of "without authorization" is no modal verb. A bound's "no" ("no later
    # than") still marks the modal's position: moving it cost 0.008 on the training pairs.
    in_phrase = phrase_positions(toks)
    modal_at = next((i for i, t in enumerate(toks) if t in _DEONTIC and i not in in_phrase), None)
    prev_content = None
    for i, term in enumerate(terms):
        if not term:
            continue
        between = toks[prev_content + 1 : i] if prev_content is not None else None
        joined = between in (["or"], ["and", "or"]) or (
            # "A, B or C": a comma now, and the item (a word or two) ends at a comma or the
            # "or"; "two years, counted from … made or put out" lists nothing.
            between == []
            and "," in text[matches[prev_content].end() : matches[i].start()]
            and _LIST_ITEM_END_RE.match(text, matches[i].end()) is not None
            and re.search(r"\bor\b", text[matches[i].end() : matches[i].end() + 40]) is not None
        )
        if term in slot_of:
            prev_content = i
            continue
        if joined and prev_content is not None and terms[prev_content] in slot_of:
            slot = slot_of[terms[prev_content]]
            groups[slot].append(term)
            slot_of[term] = slot
        else:
            slot_of[term] = len(groups)
            groups.append([term])
            labels.append(raw[i])
            first_pos.append(i)
            # The subject (before the modal) is often a defined term the source names
            # differently ("Recipient"), as is a contract's role name wherever it stands
            # ("returned by the Receiving Party"); vague words and parenthetical examples
            # say little.
            factor = 1.0
            if toks[i] in LIGHT_WORDS:
                factor = 0.3
            elif in_parens[i]:
                factor = 0.4
            elif (modal_at is not None and i < modal_at) or _defined_role(raw, i):
                factor = 0.35
            prior.append(factor)
        prev_content = i

    anchor = None
    if modal_at is not None:
        for j in range(modal_at + 1, min(len(toks), modal_at + 6)):
            if (terms[j] and toks[j] not in _MODAL_WORDS and not raw[j][0].isupper()
                    and not (toks[j].endswith("ly") and len(toks[j]) > 4)):
                anchor = terms[j]
                break
    prefix = toks[: (modal_at + 1 if modal_at is not None else 0) + 4]
    exception_after = bool(EXCEPTION_RE.search(text.lower()))
    stance = stance_of(prefix if modal_at is not None else toks, exception_after)
    restrict_at = next((i for i, t in enumerate(toks) if t in RESTRICTIVE), None)
    scope_slots = frozenset(
        k for k, pos in enumerate(first_pos) if restrict_at is not None and pos > restrict_at
        and groups[k][0] != anchor
    )
    word_terms = tuple(tuple(t for t in (token_term(x) for x, _ in token_offsets(w)) if t) for w, _ in words)
    grounded = frozenset(
        t for (_, importance), wt in zip(words, word_terms, strict=False) if importance >= 0.95
        for t in wt if t in slot_of and prior[slot_of[t]] == 1.0
    ) | frozenset(
        # Each alternative of "A, B or C" must exist somewhere in the sources.
        t for k, g in enumerate(groups) if len(g) > 1 and prior[k] == 1.0 for t in g
    )
    predicate = anchor
    if predicate is None:
        predicate = next(
            (terms[i] for i in range(1, len(toks))
             if terms[i] and toks[i].endswith("ed") and len(toks[i]) > 4 and not raw[i][0].isupper()
             and toks[i] not in LIGHT_WORDS and not in_parens[i]),
            None,
        )
    return ClaimInfo(
        predicate=predicate,
        groups=tuple(tuple(g) for g in groups), labels=tuple(labels), prior=tuple(prior),
        numeric=tuple(any(t[0].isdigit() for t in g) for g in groups), grounded=grounded,
        quantities=quantities(text), stance=stance, anchor=anchor,
        restrictive=restrict_at is not None, scope_slots=scope_slots,
        hedged=bool(set(toks) & HEDGES), word_terms=word_terms,
    )
