"""Training the Judge's classifier: features of every pair (through the Judge's own
alignment, :func:`verification.classifier.reading_for`), then a class-balanced
multinomial logistic regression with an L2 penalty, fitted by full-batch gradient descent
for a fixed number of steps from zero (no randomness: the same pairs give the same weights
bit for bit on one platform; weights are rounded to 6 decimals in the file).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from verification.classifier import CLASSES, reading_for
from verification.features import MINILM_NAMES, NAMES
from verification.skeptic import ClaimDraft, claim_type, substantive_words

L2 = 1e-3
STEPS = 4000
LEARNING_RATE = 0.5


def item_chunks(source: str):
    """The evidence chunks of one item's source, cut as ``evaluate verification`` cuts them."""
    from verification.evaluation import _source_chunks

    return _source_chunks(source)


def document_idf(texts: Sequence[str]) -> dict[str, float]:
    """Inverse document frequency of each comparison term over ``texts``, scaled to
    [0, 1] (1 = a term in one document or none), rounded to 3 decimals; terms of a single
    document are left out (they read as 1.0, the default)."""
    from verification.reading import terms

    df: dict[str, int] = {}
    for text in texts:
        for term in set(terms(text)):
            df[term] = df.get(term, 0) + 1
    top = np.log(len(texts) + 1.0)
    return {t: round(float(np.log((len(texts) + 1.0) / (n + 0.5)) / top), 3)
            for t, n in sorted(df.items()) if n > 1 and not t[0].isdigit()}


def featurise(items: Sequence[dict], *, minilm: bool,
              idf: dict[str, float] | None = None) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Feature matrix, class indices and the indices of the items kept (an item whose
    claim shares no key word with its source is left out: the Judge never asks the
    classifier about it)."""
    rows, labels, kept = [], [], []
    for n, item in enumerate(items):
        chunks = item_chunks(item["source"])
        text = item["claim"]
        claim = ClaimDraft(text, claim_type(text), (0, len(text)),
                           tuple(c.chunk_id for c in chunks), substantive_words(text))
        reading = reading_for(claim, chunks, minilm=minilm, idf=idf or {})
        if reading is None:
            continue
        rows.append(reading.values)
        labels.append(CLASSES.index(item["label"]))
        kept.append(n)
    return np.asarray(rows, dtype=float), np.asarray(labels, dtype=int), kept


def fit_logistic(x: np.ndarray, y: np.ndarray) -> dict:
    """``{"mean", "scale", "coef"}`` of a multinomial logistic regression (classes ×
    features), features standardised (the bias column kept at 1), classes weighted by
    inverse frequency."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    mean[0], scale[0] = 0.0, 1.0
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = (x - mean) / scale
    k = len(CLASSES)
    onehot = np.eye(k)[y]
    counts = np.bincount(y, minlength=k).astype(float)
    sample_w = (len(y) / (k * np.maximum(counts, 1.0)))[y]
    coef = np.zeros((k, x.shape[1]))
    for _ in range(STEPS):
        logits = z @ coef.T
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = ((p - onehot) * sample_w[:, None]).T @ z / len(y)
        penalty = L2 * coef
        penalty[:, 0] = 0.0
        coef -= LEARNING_RATE * (grad + penalty)
    return {"mean": np.round(mean, 6).tolist(), "scale": np.round(scale, 6).tolist(),
            "coef": np.round(coef, 6).tolist()}


def train(items: Sequence[dict], *, minilm: bool, idf: dict[str, float] | None = None) -> dict:
    """Weights of both models: ``{"features", "classes", "lexical": model, "minilm":
    model (when ``minilm``), "training": {...counts and a digest of the pairs}}``."""
    digest = hashlib.sha256(
        "\n".join(f"{i['source']}\t{i['claim']}\t{i['label']}" for i in items).encode()
    ).hexdigest()[:16]
    # Each model is fitted on the features it will see: the lexical one on the rule stage
    # without matching by meaning, the MiniLM one with it.
    x, y, kept = featurise(items, minilm=False, idf=idf)
    lexical = fit_logistic(x, y)
    out = {"features": list(NAMES), "minilm_features": list(MINILM_NAMES),
           "classes": list(CLASSES), "lexical": lexical,
           "training": {"pairs": len(items), "used": len(kept), "digest": digest,
                        "per_class": np.bincount(y, minlength=len(CLASSES)).tolist()}}
    if minilm:
        x_minilm, y_minilm, _ = featurise(items, minilm=True, idf=idf)
        out["minilm"] = fit_logistic(x_minilm, y_minilm)
    out["idf"] = idf or {}
    return out
