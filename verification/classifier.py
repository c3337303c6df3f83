"""The Judge's learned stage (issue 10): a small multinomial logistic regression over the
features of the aligned (claim, evidence window) pair (:mod:`verification.features`).

The weights ship in ``verification/data/judge_weights.json`` (built by ``manage.py
train_judge``, deterministically, from generated and hand-written pairs that are not the
benchmark's dev set), one set without and one with the MiniLM features. Which set runs:
``CIQ_JUDGE_MINILM`` = ``on`` / ``off`` / ``auto`` (the default: on when
``CIQ_EMBEDDER=minilm``, so a deployment that already loads MiniLM for retrieval uses it,
and nothing else pays for loading the model). Without the weights file, or unless
``CIQ_JUDGE_LEARNED=on``, the rule stage decides alone (the default for now: with its
restatement gate the classifier gains on the hand-written legal set and no longer loses on
the benchmark's dev split, but turning it on changes verdicts across the app).
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np

from verification.alignment import minilm, minilm_enabled
from verification.claim_info import ClaimInfo
from verification.clash import restates
from verification.evidence import PreparedChunk
from verification.features import MINILM_NAMES, NAMES, PairReading, read_pair
from verification.models import Verdict

WEIGHTS_FILE = Path(__file__).resolve().parent / "data" / "judge_weights.json"
CLASSES = ("supported", "not_supported", "contradicted")
CONTRADICTED_MAX_SCORE = 0.35
UPGRADE_MIN = 0.6  # classifier probability needed to call a rule-weak claim supported


@cache
def load_weights(path: Path = WEIGHTS_FILE) -> dict | None:
    """The weights file as a dict (``{"lexical": {...}, "minilm": {...}}``), or None."""
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def learned_enabled() -> bool:
    """Whether the classifier runs at all (``CIQ_JUDGE_LEARNED`` = ``on``; off by
    default: see the README's "Quality and speed")."""
    return os.environ.get("CIQ_JUDGE_LEARNED", "off").strip().lower() in ("1", "on", "true", "yes")


_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
_VECTOR_CACHE = 20000


def embed_cached(texts: Sequence[str]) -> list[np.ndarray]:
    """MiniLM unit vectors of ``texts``, cached per text (evidence windows recur across
    the claims of a turn, as chunk vectors would be stored at ingestion)."""
    todo = list(dict.fromkeys(t for t in texts if t not in _vectors))
    if todo:
        for text, vec in zip(todo, minilm().embed(todo), strict=True):
            _vectors[text] = vec
            if len(_vectors) > _VECTOR_CACHE:
                _vectors.popitem(last=False)
    return [_vectors[t] for t in texts]


def minilm_features(claim: str, window: str, sentence: str, runner_up: str) -> list[float]:
    """Cosine of claim and aligned window, of claim and its sentence, and the margin of
    the sentence over the runner-up window (see :data:`MINILM_NAMES`)."""
    c, w, s, r = embed_cached([claim, window, sentence, runner_up or window])
    cos_w, cos_s, cos_r = float(c @ w), float(c @ s), float(c @ r)
    return [cos_w, cos_s, max(cos_w, cos_s) - cos_r]


def pair_reading(claim_text: str, info: ClaimInfo, decision, alignment,
                 prepared: Sequence[PreparedChunk], *, minilm: bool,
                 idf: dict[str, float] | None = None) -> PairReading:
    """Features of the rule stage's aligned pair (``decision`` and ``alignment`` from
    :mod:`verification.judge`); with ``minilm`` the cosine features follow."""
    win = decision.win
    chunk = prepared[win.chunk]
    sents = chunk.sentences[win.first : win.last + 1]
    window_text = chunk.text[sents[0].start : sents[-1].end]
    anywhere = {t for p in prepared for t in p.index}
    absent = np.array([not any(t in anywhere for t in g) for g in info.groups], dtype=float)
    w = alignment.weights
    missing = float((w * absent).sum() / max(float(w.sum()), 1e-9))
    reading = read_pair(
        claim_text, window_text, coverage=win.coverage, rule_verdict=str(decision.verdict),
        rule_clash=win.clash, missing_anywhere=missing, novel_terms=int(absent.sum()),
        evidence_terms=anywhere, idf=idf if idf is not None else _idf(), idf_default=1.0,
    )
    if minilm:
        runner = next((c for c in alignment.candidates if (c.chunk, c.first) != (win.chunk, win.first)),
                      None)
        runner_text = ""
        if runner is not None:
            rs = prepared[runner.chunk].sentences[runner.first : runner.last + 1]
            runner_text = prepared[runner.chunk].text[rs[0].start : rs[-1].end]
        reading.values += minilm_features(claim_text, window_text, reading.sentence, runner_text)
    return reading


def _idf() -> dict[str, float]:
    weights = load_weights()
    return weights.get("idf", {}) if weights else {}


def probabilities(values: Sequence[float], model: dict) -> np.ndarray:
    """Class probabilities (order :data:`CLASSES`) of one feature vector under ``model``
    (``{"mean", "scale", "coef"}``: standardised features times a classes × features
    coefficient matrix, then softmax)."""
    x = (np.asarray(values, dtype=float) - np.asarray(model["mean"])) / np.asarray(model["scale"])
    z = np.asarray(model["coef"]) @ x
    z = z - z.max()
    p = np.exp(z)
    return p / p.sum()


def classify(claim_text: str, info: ClaimInfo, decision, alignment, chunks, prepared):
    """The classifier's decision on the aligned pair, as a ``judge._Decision``; the rule
    decision unchanged when no weights ship. A contradiction names its clashing pair
    ("claim: 60 days / evidence: 30 days")."""
    weights = load_weights()
    if weights is None or not learned_enabled():
        return decision
    use_minilm = minilm_enabled() and "minilm" in weights
    model = weights["minilm" if use_minilm else "lexical"]
    reading = pair_reading(claim_text, info, decision, alignment, prepared, minilm=use_minilm)
    p = probabilities(reading.values, model)
    label = _gate(str(decision.verdict), CLASSES[int(np.argmax(p))], float(p[0]), reading,
                  restated=restates(claim_text, reading.sentence))
    win = decision.win
    chunk_id = chunks[win.chunk].chunk_id
    p_sup = float(p[0])
    sentence = " ".join(reading.sentence.split())
    aligned = f"aligned evidence: \u201c{sentence}\u201d"
    if label == "contradicted":
        if decision.verdict == Verdict.CONTRADICTED:
            return replace(decision, note=aligned)
        described = "; ".join(dict.fromkeys(reading.clashes))
        return replace(decision, verdict=Verdict.CONTRADICTED, score=min(p_sup, CONTRADICTED_MAX_SCORE),
                       win=replace(win, clash=described), support_ids=(),
                       clash_ids=(chunk_id,), note=aligned)
    if label == "supported":
        if decision.verdict == Verdict.SUPPORTED:
            return replace(decision, note=aligned)
        return replace(decision, verdict=Verdict.SUPPORTED, score=max(p_sup, win.coverage),
                       win=replace(win, clash=""), support_ids=(chunk_id,), clash_ids=(),
                       note=aligned)
    return decision


def _gate(rule: str, learned: str, p_supported: float, reading: PairReading, *,
          restated: bool = True) -> str:
    """Where the classifier may overrule the rule stage: only on an aligned sentence that
    restates the claim (``restated``: :func:`verification.clash.restates`, the rule the
    clash checks follow), and then it names a contradiction only with a clashing pair a
    reviewer can check (numbers, modality, negation, parties), and it upgrades a weak or
    not-found claim to supported only when confident (``UPGRADE_MIN``). Otherwise the rule
    stage's verdict stands: the classifier was trained on passages of three sentences, and
    a whole contract's long sentence holds other clauses, whose modal verbs and words are
    not the claim's (without this gate it cost 0.2 on ContractNLI dev)."""
    if learned == "contradicted" and reading.clashes and restated and rule != "contradicted":
        return "contradicted"
    if (learned == "supported" and rule in ("weak", "not_found") and restated
            and p_supported >= UPGRADE_MIN):
        return "supported"
    return {"supported": "supported", "contradicted": "contradicted"}.get(rule, "not_supported")


__all__ = ["CLASSES", "MINILM_NAMES", "NAMES", "classify", "load_weights", "minilm_enabled",
           "pair_reading", "probabilities"]


def reading_for(claim, chunks, *, minilm: bool,
                idf: dict[str, float] | None = None) -> PairReading | None:
    """The features the Judge would compute for ``claim`` (a ``ClaimDraft`` citing every
    chunk) against ``chunks`` (``EvidenceChunk``), or None when no evidence sentence shares
    a key word (the Judge then says not_found without asking the classifier)."""
    from verification.claim_info import claim_info
    from verification.judge import _align, prepare_chunk, rule_stage

    words = tuple((str(w), float(i)) for w, i in claim.substantive_words)
    info = claim_info(claim.text, words)
    if not info.groups:
        return None
    prepared = [prepare_chunk(c.text) for c in chunks]
    alignment = _align(info, prepared)
    if alignment is None or not alignment.candidates:
        return None
    decision = rule_stage(claim.text, info, alignment, chunks, prepared, meaning=minilm)
    return pair_reading(claim.text, info, decision, alignment, prepared, minilm=minilm, idf=idf)
