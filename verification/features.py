"""Features of one aligned (claim, evidence window) pair for the Judge's classifier
(issue 10), and the clashing pairs a reviewer can check.

The rule stage (:mod:`verification.judge`) aligns the claim to its best evidence window
and runs the structured clash checks; this module reads the pair again the way a lawyer
would: which *sentence* of the window carries the claim, whether both say "shall" or
"may" or "shall not" (phrases such as "is required to" and "need not" included), whether
one negates what the other states, whether the parties keep their roles ("Licensee may
return … to Licensor"), whether a number, a condition or an exception differs, and how
much of the claim the evidence never states. Optionally a sentence model (MiniLM) adds
the cosine similarity of claim and window. Every feature is a float; :data:`NAMES` and
:data:`MINILM_NAMES` fix their order, which the weights file records.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from verification.clash import party_clash
from verification.evidence import Quantity, quantities
from verification.lexicon import EXCEPTION
from verification.reading import best_sentence, modal_of, negations, parties, terms

NAMES: tuple[str, ...] = (
    "bias", "coverage", "coverage_sentence", "soft_coverage", "missing_anywhere",
    "novel_terms", "rule_supported", "rule_weak", "rule_not_found", "rule_contradicted",
    "clash_number", "clash_stance", "clash_scope", "number_conflict", "number_missing",
    "modal_must_vs_may", "modal_may_vs_must", "modal_negation", "negation_mismatch",
    "party_swap", "party_missing", "condition_mismatch", "claim_terms",
    "unmatched_share", "unmatched_idf_max", "unmatched_idf_mean",
)
MINILM_NAMES: tuple[str, ...] = ("cos_window", "cos_sentence", "cos_margin")

_CONDITION_WORDS = ("unless", "except", "only if", "provided that", "if", "subject to",
                    "notwithstanding", "other than")


@dataclass
class PairReading:
    """The features of one pair and the clashing pairs found ("claim: 60 days / evidence:
    30 days"), in the order of :data:`NAMES` (+ :data:`MINILM_NAMES`)."""

    values: list[float]
    clashes: list[str] = field(default_factory=list)
    sentence: str = ""  # the window's sentence that carries the claim


def _quantity_pairs(claim_q: Sequence[Quantity], ev_q: Sequence[Quantity]) -> tuple[float, float, list[str]]:
    conflicts, missing, pairs = 0.0, 0.0, []
    for cq in claim_q:
        same = [q for q in ev_q if q.unit == cq.unit]
        if any(abs(q.value - cq.value) < 1e-9 for q in ev_q):
            continue
        if same:
            conflicts += 1
            pairs.append(f"claim: {cq.text.rstrip('.')} / evidence: {same[0].text.rstrip('.')}")
        else:
            missing += 1
    return conflicts, missing, pairs


def read_pair(
    claim: str, window_text: str, *, coverage: float, rule_verdict: str, rule_clash: str,
    missing_anywhere: float, novel_terms: int, evidence_terms: set[str],
    idf: dict[str, float] | None = None, idf_default: float = 1.0,
) -> PairReading:
    """Features of ``claim`` against its aligned ``window_text`` (see :data:`NAMES`).

    ``coverage`` is the rule stage's weighted coverage of the window, ``rule_verdict`` its
    verdict, ``rule_clash`` its clash description ("" for none), ``missing_anywhere`` the
    weighted share of claim slots no evidence sentence holds, ``novel_terms`` their count,
    ``evidence_terms`` every term of the cited evidence; ``idf`` the corpus' inverse
    document frequency per term, scaled to [0, 1] (``idf_default`` for unseen terms): a
    rewording leaves common words unmatched ("takes effect", "every"), an added detail
    rare ones ("notary", "untreated").
    """
    claim_terms = terms(claim)
    cset = set(claim_terms)
    sentence = best_sentence(cset, window_text)
    sent_terms = set(terms(sentence))
    win_terms = set(terms(window_text))
    cov_sentence = len(cset & sent_terms) / (len(cset) or 1)
    soft = 0
    for t in cset:
        if t in win_terms or (len(t) >= 5 and any(w[:5] == t[:5] for w in win_terms)):
            soft += 1
    soft_cov = soft / (len(cset) or 1)

    clashes: list[str] = []
    conflict, missing, qpairs = _quantity_pairs(quantities(claim), quantities(sentence))
    if not qpairs and rule_clash.startswith("the evidence says"):
        conflict, missing, qpairs = _quantity_pairs(quantities(claim), quantities(window_text))
    clashes += qpairs

    c_mod, c_phrase = modal_of(claim)
    e_mod, e_phrase = modal_of(sentence)
    must_vs_may = float(c_mod == "must" and e_mod == "may")
    may_vs_must = float(c_mod == "may" and e_mod == "must")
    neg_modal = float(bool(c_mod and e_mod) and (c_mod in ("must_not", "need_not"))
                      != (e_mod in ("must_not", "need_not")))
    if must_vs_may or may_vs_must or neg_modal:
        clashes.append(f"claim: \"{c_phrase}\" / evidence: \"{e_phrase}\"")
    neg_mismatch = float((negations(claim) > 0) != (negations(sentence) > 0))
    if neg_mismatch and not neg_modal:
        said = "negates" if negations(claim) else "states"
        clashes.append(f"the claim {said} what the evidence "
                       f"{'states' if said == 'negates' else 'negates'}")

    party = party_clash(claim, sentence)
    swap = float(bool(party))
    if party:
        clashes.append(party)
    party_missing = float(any(p not in evidence_terms for p in parties(claim)))

    c_low, s_low = claim.lower(), sentence.lower()
    cond = float(any((re.search(rf"\b{w}\b", c_low) is not None)
                     != (re.search(rf"\b{w}\b", s_low) is not None)
                     for w in _CONDITION_WORDS + tuple(e for e in EXCEPTION if " " not in e)))

    unmatched = [t for t in cset if t not in win_terms and not t[0].isdigit()]
    weights = [(idf or {}).get(t, idf_default) for t in unmatched]
    values = [
        1.0, coverage, cov_sentence, soft_cov, missing_anywhere, min(novel_terms, 5) / 5.0,
        float(rule_verdict == "supported"), float(rule_verdict == "weak"),
        float(rule_verdict == "not_found"), float(rule_verdict == "contradicted"),
        float(rule_clash.startswith("the evidence says")),
        float(" where the claim " in rule_clash and "scope" not in rule_clash
              and not rule_clash.startswith("the evidence says")),
        float("scope" in rule_clash), min(conflict, 2) / 2.0, min(missing, 2) / 2.0,
        must_vs_may, may_vs_must, neg_modal, neg_mismatch, swap, party_missing, cond,
        min(len(cset), 30) / 30.0,
        len(unmatched) / (len(cset) or 1), max(weights, default=0.0),
        sum(weights) / len(weights) if weights else 0.0,
    ]
    assert len(values) == len(NAMES)
    return PairReading(values, clashes, sentence)

