"""Contradiction detection between a claim and an evidence window: a changed number, a
clashing modality or negation, or a broad scope against an "only" claim (:func:`clash`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verification.claim_info import EXCEPTION_RE, ClaimInfo, stance_of
from verification.evidence import Sentence, token_offsets, token_term
from verification.lexicon import RESTRICTIVE
from verification.reading import by_agents, mentions, modal_of, modals, negative, roles, terms

RESTATEMENT = 0.5

# --------------------------------------------------------------------------------------
# Clash detection


def clash(info: ClaimInfo, sents: Sequence[Sentence], chunk_text: str) -> str:
    """A description of a number, modality/negation or scope clash, or "" for none."""
    return (_quantity_clash(info, sents) or _stance_clash(info, sents, chunk_text)
            or _scope_clash(info, sents, chunk_text))


def sentence_clash(claim: str, sentence: str, *, hedged: bool = False) -> str:
    """A modality, polarity or acting-party clash between ``claim`` and the evidence
    ``sentence`` aligned to it, read as a lawyer reads them (:mod:`verification.reading`):
    "may" against "shall" (unless the claim is hedged: "may, in some cases"), "shall"
    against "may", "shall not" or "need not" against "shall" or "may", a statement against
    its negation, or the acting party swapped with another party of the sentence. Returns
    the clashing pair ("claim: "may" / evidence: "shall"") or "" for none.

    Only a sentence the claim restates is read this way (at least ``RESTATEMENT`` of the
    sentence's content terms are the claim's): a long contract sentence holds other
    clauses, whose negations and modal verbs are not the claim's; and of it only the
    negations and modal verbs that govern the claim's words (``scope`` in
    :mod:`verification.reading`).
    """
    if not restates(claim, sentence):
        return ""
    claim_terms = set(terms(claim))
    c_mod, c_phrase = modal_of(claim)
    e_mod, e_phrase = modal_of(sentence)
    c_all, e_all = modals(claim), modals(sentence, claim_terms)
    # A sentence may hold several modal verbs: only a claim none of whose modalities the
    # evidence's agree with clashes ("cannot meet the code … has to be removed" / "shall").
    if c_all and e_all and all(_modal_clash(c, e, hedged) for c in c_all for e in e_all):
        return f"claim: \u201c{c_phrase}\u201d / evidence: \u201c{e_phrase}\u201d"
    if _polarity_clash(claim, sentence, claim_terms):
        said = "negates" if negative(claim) else "states"
        return (f"the claim {said} what the evidence "
                f"{'states' if said == 'negates' else 'negates'}")
    return party_clash(claim, sentence)


def restates(claim: str, sentence: str) -> bool:
    """Whether the evidence ``sentence`` restates ``claim``: at least ``RESTATEMENT`` of the
    sentence's content terms are the claim's. Only such a sentence is read for modality,
    polarity and party clashes: a long contract sentence holds other clauses."""
    sentence_terms = set(terms(sentence))
    return len(sentence_terms & set(terms(claim))) >= RESTATEMENT * len(sentence_terms)


def _polarity_clash(claim: str, sentence: str, claim_terms: set[str]) -> bool:
    """A statement against its negation. A negative claim does not clash with a sentence
    whose negative modal verb governs none of the claim's words: it may govern them said in
    other words ("can't be credited" / "shall not count"). A plain negation elsewhere in
    the sentence is no such verb ("where the cost does not amount to the deposit, a refund
    shall be issued")."""
    if negative(claim):
        return not negative(sentence, claim_terms) and not set(modals(sentence)) & _NEGATIVE
    return negative(sentence, claim_terms)


def party_clash(claim: str, sentence: str) -> str:
    """The parties' roles swapped or replaced between ``claim`` and the evidence
    ``sentence`` (:func:`verification.reading.roles`, the evidence read around the modal
    verb that governs the claim's words): one's actor is the other's object ("The Bureau
    shall inform the official" / "the official … shall inform the Bureau"), or each has
    another actor and either each names the other's (swapped) or neither does
    (replaced: "by the City Recorder" / "by the Planning Commission"). Returns the
    clashing pair ("claim: Bureau acts / evidence: official acts") or "" for none. When
    one actor is named in the other sentence in a role the reading cannot place, there is
    no clash: an unread clause is not evidence of a swap."""
    # "appointed by the City Council" / "to be appointed by the mayor", whatever the
    # main verbs of the two sentences.
    evidence_agents = by_agents(sentence)
    for verb, agent in by_agents(claim).items():
        other = evidence_agents.get(verb)
        if other is not None and not agent.same(other):
            return f"claim: {agent.words} acts / evidence: {other.words} acts"
    c, e = roles(claim), roles(sentence, set(terms(claim)))
    if c.agent is None or (e.agent is not None and c.agent.same(e.agent)):
        return ""
    if e.agent is None:
        if any(c.agent.same(m) for m in e.objects):
            return f"claim: {c.agent.words} acts / evidence: {c.agent.words} is acted towards"
        return ""
    pair = f"claim: {c.agent.words} acts / evidence: {e.agent.words} acts"
    if any(c.agent.same(m) for m in e.objects) or any(e.agent.same(m) for m in c.objects):
        return pair
    claim_actor_named = any(c.agent.same(m) for m in mentions(sentence))
    evidence_actor_named = any(e.agent.same(m) for m in mentions(claim))
    return pair if claim_actor_named == evidence_actor_named else ""


_NEGATIVE_MODALS = ("must_not", "need_not")
_NEGATIVE = frozenset(_NEGATIVE_MODALS)


def _modal_clash(claim: str, evidence: str, hedged: bool) -> bool:
    if claim == evidence:
        return False
    if (claim in _NEGATIVE_MODALS) != (evidence in _NEGATIVE_MODALS):
        # "need not" against "may" only declines a duty the evidence never imposed.
        return {claim, evidence} != {"need_not", "may"}
    if claim == "may" and evidence == "must":
        return not hedged
    return claim == "must" and evidence == "may"


def _quantity_clash(info: ClaimInfo, sents: Sequence[Sentence]) -> str:
    ev = [q for s in sents for q in s.quantities]
    for cq in info.quantities:
        if not cq.unit:
            continue
        same_unit = [q for q in ev if q.unit == cq.unit]
        if same_unit and not any(abs(q.value - cq.value) < 1e-9 for q in same_unit):
            said = ", ".join(dict.fromkeys(q.text.rstrip(".") for q in same_unit))
            return f"the evidence says \"{said}\" where the claim says \"{cq.text.rstrip('.')}\""
    return ""


_COMPATIBLE = {
    # claim stance -> evidence stances that do not clash with it
    "oblige": {"oblige", "assert", "restrict"},
    "permit": {"permit", "assert", "restrict", "oblige"},
    "prohibit": {"prohibit", "neg", "restrict"},
    "neg": {"prohibit", "neg", "restrict"},
    "assert": {"assert", "oblige", "permit", "restrict"},
    "restrict": {"oblige", "permit", "prohibit", "neg", "assert", "restrict"},
}
_STANCE_WORDS = {
    "oblige": "requires", "permit": "permits", "prohibit": "prohibits", "neg": "denies",
    "assert": "states", "restrict": "restricts",
}


_COPULAS = frozenset("is are was were be been being has have had does do did".split())


def _evidence_stance(
    info: ClaimInfo, sent: Sentence, chunk_text: str
) -> tuple[str, str] | None:
    """Stance of the evidence sentence toward the claim's anchor, with the words it rests on.

    Looks at up to 12 tokens before the anchor in the same clause ("shall not … retain").
    A prohibition followed by an exception that names claim words the prohibition itself
    does not ("shall not disclose … except to its employees") restricts rather than
    prohibits, as does "only"/"solely" just after the verb. Capitalised occurrences are
    defined terms ("Disclosing Party"), not the predicate.
    """
    if info.anchor is None:
        return None
    body = chunk_text[sent.start : sent.end]
    other_terms = set(info.terms) - {info.anchor}
    for i, term in enumerate(sent.terms):
        if term != info.anchor or sent.caps[i]:
            continue
        lo = i
        while lo > 0 and i - lo < 12 and sent.clause[lo - 1] == sent.clause[i]:
            lo -= 1
        # Negation may also follow the predicate: "composed of no toxic chemicals".
        window = [t for t, _ in sent.tokens[lo : i + 1]] + [
            t for t, _ in sent.tokens[i + 1 : i + 3] if t in ("no", "nothing", "none")
        ]
        after = body[sent.tokens[i][1] :]
        exc = EXCEPTION_RE.search(after.lower())
        exception_after = False
        if exc:
            # The carve-out covers the claim when it names claim words the rule itself
            # does not ("shall not disclose to anyone except its employees").
            cut = sent.tokens[i][1] + exc.start()
            head_terms = {t for t, (_, off) in zip(sent.terms, sent.tokens, strict=False) if off < cut}
            tail_terms = {token_term(t) for t, _ in token_offsets(after[exc.start() :])}
            exception_after = bool((tail_terms & other_terms) - head_terms)
        # "shall disclose … only to its employees": a scope word just after the verb.
        follow = [t for t, _ in sent.tokens[i + 1 : i + 10]]
        scoped = bool(set(follow) & RESTRICTIVE)
        stance = stance_of(window, exception_after)
        if stance == "restrict" and not exception_after and not set(window) & RESTRICTIVE:
            stance = "prohibit"
        if scoped and stance in ("oblige", "permit", "assert"):
            stance = "restrict"
        negated_claim = info.stance in ("prohibit", "neg")
        if stance == "assert" and negated_claim and not set(window[-3:-1]) & _COPULAS:
            # Without a modal, negation or copula the word is likely attributive ("the
            # information disclosed", "the powers granted"): no stance to compare.
            return None
        phrase = body[sent.tokens[lo][1] : sent.tokens[i][1] + len(sent.tokens[i][0])]
        return stance, phrase
    return None


def _stance_clash(info: ClaimInfo, sents: Sequence[Sentence], chunk_text: str) -> str:
    """A clash only when every evidence sentence that states the claim's predicate clashes:
    contracts often prohibit in one sentence and carve out an exception in the next."""
    clash = ""
    allowed = _COMPATIBLE[info.stance]
    if info.stance == "permit" and not info.hedged:
        # "must" restated as "may" misstates the rule (DESIGN.md §1: modality agreement);
        # a hedged claim ("may … in some circumstances") only asserts a possibility.
        allowed = allowed - {"oblige"}
    for sent in sents:
        found = _evidence_stance(info, sent, chunk_text)
        if found is None:
            continue
        stance, phrase = found
        if stance in allowed:
            return ""
        clash = clash or (f"the evidence {_STANCE_WORDS[stance]} (\"{phrase.strip()}\") where the "
                          f"claim {_STANCE_WORDS[info.stance]}")
    return clash


_BROAD_RE = re.compile(
    r"\b(?:including|includes?|such as|without limitation|not limited to|whether|any and all|"
    r"all (?:\w+ )?information|any (?:\w+ )?information|of any kind|or otherwise|in any form)\b",
    re.IGNORECASE,
)


def _scope_clash(info: ClaimInfo, sents: Sequence[Sentence], chunk_text: str) -> str:
    """An "only X" claim against evidence that defines the scope broadly."""
    if not info.restrictive:
        return ""
    text = " ".join(chunk_text[s.start : s.end] for s in sents)
    low = text.lower()
    if re.search(r"\b(?:only|solely|exclusively)\b|(?<!not )\blimited to\b", low):
        return ""
    broad = _BROAD_RE.search(text)
    if broad:
        return (f"the evidence defines the scope broadly (\"{broad.group()}\") where the claim "
                f"says \"only\"")
    return ""
