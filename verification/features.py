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

from ciq.text import STOPWORDS
from verification.evidence import Quantity, quantities, token_offsets, token_term
from verification.lexicon import EXCEPTION, MODAL_PHRASES

NAMES: tuple[str, ...] = (
    "bias", "coverage", "coverage_sentence", "soft_coverage", "missing_anywhere",
    "novel_terms", "rule_supported", "rule_weak", "rule_not_found", "rule_contradicted",
    "clash_number", "clash_stance", "clash_scope", "number_conflict", "number_missing",
    "modal_must_vs_may", "modal_may_vs_must", "modal_negation", "negation_mismatch",
    "party_swap", "party_missing", "condition_mismatch", "claim_terms",
    "unmatched_share", "unmatched_idf_max", "unmatched_idf_mean",
)
MINILM_NAMES: tuple[str, ...] = ("cos_window", "cos_sentence", "cos_margin")

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
_CONDITION_WORDS = ("unless", "except", "only if", "provided that", "if", "subject to",
                    "notwithstanding", "other than")


@dataclass
class PairReading:
    """The features of one pair and the clashing pairs found ("claim: 60 days / evidence:
    30 days"), in the order of :data:`NAMES` (+ :data:`MINILM_NAMES`)."""

    values: list[float]
    clashes: list[str] = field(default_factory=list)
    sentence: str = ""  # the window's sentence that carries the claim


_MODAL_OF = dict(MODAL_PHRASES)
_MODAL_RE = re.compile(
    r"(?<![\w'])(" + "|".join(re.escape(p) for p, _ in MODAL_PHRASES) + r")(?![\w'])"
)
_MULTIWORD_MODAL_RE = re.compile(
    r"(?<![\w'])(" + "|".join(re.escape(p) for p, _ in MODAL_PHRASES
                              if " " in p or p in ("cannot", "can't")) + r")(?![\w'])"
)


def modal_of(text: str) -> tuple[str, str]:
    """The claim's or sentence's first modality — "must", "may", "must_not", "need_not"
    or "" — and the words that say it (longest phrase at the first position)."""
    m = _MODAL_RE.search(" ".join(text.lower().split()))
    return (_MODAL_OF[m.group(1)], m.group(1)) if m else ("", "")


def negations(text: str) -> int:
    """Negation words in ``text`` outside modal phrases ("not more than" counts)."""
    return len(_NEG_RE.findall(_MULTIWORD_MODAL_RE.sub(" ", text.lower())))


def _terms(text: str) -> list[str]:
    return [t for t in (token_term(tok) for tok, _ in token_offsets(text)) if t]


def parties(text: str) -> list[str]:
    """Parties named in order of first mention: role words and capitalised names (not the
    first word, not a stopword), as comparison terms."""
    out: list[str] = []
    for i, (tok, off) in enumerate(token_offsets(text)):
        raw = text[off : off + len(tok)]
        is_name = raw[:1].isupper() and i > 0 and tok not in STOPWORDS and len(tok) > 2
        if tok in ROLE_WORDS or is_name:
            term = token_term(tok)
            if term and term not in out and not term[0].isdigit():
                out.append(term)
    return out


def _subject(text: str) -> str | None:
    """The party acting: the last party before the modal, or the agent of a passive
    ("… shall be billed and collected by Lake Oswego")."""
    m = re.search(r"\bby (?:the |its |an? )?((?:[A-Z][\w'’]*\s?){1,3}|\w+)", text)
    modal, phrase = modal_of(text)
    low = text.lower()
    at = low.find(phrase) if phrase else -1
    if m and (at < 0 or m.start() > at) and re.search(r"\b(?:be|been|is|are)\s+\w+ed\b", low):
        found = parties(m.group(1)) or _terms(m.group(1))
        if found:
            return found[0]
    head = text[:at] if at > 0 else text
    found = parties(head)
    return found[-1] if found else None


def _best_sentence(claim_terms: set[str], window_text: str) -> str:
    from verification.evidence import split_sentences

    best, best_score = window_text, -1.0
    for s, e in split_sentences(window_text):
        body = window_text[s:e]
        terms = set(_terms(body))
        score = len(claim_terms & terms) / (len(claim_terms) or 1)
        if score > best_score:
            best, best_score = body, score
    return best


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
    claim_terms = _terms(claim)
    cset = set(claim_terms)
    sentence = _best_sentence(cset, window_text)
    sent_terms = set(_terms(sentence))
    win_terms = set(_terms(window_text))
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

    c_parties, e_parties = parties(claim), parties(sentence)
    c_subj, e_subj = _subject(claim), _subject(sentence)
    swap = 0.0
    if c_subj and e_subj and c_subj != e_subj and c_subj in e_parties and e_subj in c_parties:
        swap = 1.0
        clashes.append(f"claim: {c_subj} acts / evidence: {e_subj} acts")
    party_missing = float(any(p not in evidence_terms for p in c_parties))

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

