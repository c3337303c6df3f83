"""Soft alignment of a claim's words to evidence by meaning (issue 10: paraphrase
recognised): "told" in "must be told by the company" aligns to "notify" in "the company
shall notify", "stock" to "inventory", while an added "certified" aligns to nothing.

Each claim word gets the largest cosine similarity between its contextual MiniLM vector
(the mean of its word pieces) and any word piece of the evidence window, a BERTScore-style
greedy match (Zhang et al., 2020, "BERTScore: Evaluating Text Generation with BERT",
ICLR). A word counts as matched by meaning at ``SOFT_MATCH`` or above. It runs only when
the MiniLM extra is installed and enabled (``CIQ_JUDGE_MINILM``, see
:func:`minilm_enabled`), and only for claims the word match
leaves between weak and supported.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Collection, Sequence
from functools import cache

import numpy as np
from django.conf import settings

from ciq.text import TOKEN_RE
from verification.evidence import token_term

# Similarity at which a claim word counts as said by the evidence. Chosen on the
# hand-written training pairs (verification/data/judge_training_handwritten.json), not on
# the validation set: their balanced accuracy is flat at 0.69-0.70 from 0.25 to 0.40 and
# falls above (0.45: 0.674, 0.5: 0.668); the highest value of the plateau is taken, the
# strictest that keeps its gain.
SOFT_MATCH = 0.4
_CACHE = 4096
_vectors: OrderedDict[str, tuple[list[tuple[int, int]], np.ndarray]] = OrderedDict()


def minilm_enabled() -> bool:
    """Whether the Judge reads with MiniLM (soft alignment here, and the classifier's
    cosine features): ``CIQ_JUDGE_MINILM`` = ``on`` / ``off`` / ``auto`` (the default: on
    when ``CIQ_EMBEDDER=minilm``, so a deployment that already loads MiniLM for retrieval
    uses it, and nothing else pays for loading the model)."""
    flag = os.environ.get("CIQ_JUDGE_MINILM", "auto").strip().lower()
    if flag in ("1", "on", "true", "yes"):
        return True
    if flag in ("0", "off", "false", "no"):
        return False
    return getattr(settings, "CIQ_EMBEDDER", "none") == "minilm"


@cache
def minilm():
    """The MiniLM embedder the Judge reads with (one per process; the model loads once)."""
    from retrieval.embedders import MiniLMEmbedder

    return MiniLMEmbedder()


def _token_vectors(text: str) -> tuple[list[tuple[int, int]], np.ndarray]:
    found = _vectors.get(text)
    if found is None:
        found = minilm().token_vectors(text)
        _vectors[text] = found
        if len(_vectors) > _CACHE:
            _vectors.popitem(last=False)
    return found


def word_spans(text: str, words: Sequence[str]) -> list[tuple[int, int] | None]:
    """The character span of the first whole-word occurrence of each of ``words`` in
    ``text`` (case-insensitive), None where a word does not occur."""
    spans: list[tuple[int, int] | None] = []
    for word in words:
        m = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE)
        spans.append((m.start(), m.end()) if m else None)
    return spans


def similarities(claim: str, words: Sequence[str], evidence: str,
                 taken: Collection[str] = ()) -> list[float]:
    """For each of ``words`` (words of ``claim``), the largest cosine in [-1, 1] between its
    contextual vector and a free word piece of ``evidence``; 0.0 for a word not found in
    the claim. A piece is taken, and aligns to nothing else, when its word's comparison
    term is in ``taken`` (the terms the claim shares with the evidence word for word):
    alignment is one to one, so "at the owner's expense" cannot borrow the "charge" of
    "free of charge" that the claim itself repeats. Raises ``ImproperlyConfigured`` when
    the MiniLM extra is missing."""
    if not words:
        return []
    c_spans, c_vecs = _token_vectors(claim)
    e_spans, e_vecs = _token_vectors(evidence)
    taken_spans = [(m.start(), m.end()) for m in TOKEN_RE.finditer(evidence)
                   if token_term(m.group().lower()) in taken]
    free = [i for i, (a, b) in enumerate(e_spans)
            if not any(a < end and b > start for start, end in taken_spans)]
    if not len(c_vecs) or not free:
        return [0.0] * len(words)
    e_vecs = e_vecs[free]
    out = []
    for span in word_spans(claim, words):
        pieces = [] if span is None else [
            i for i, (a, b) in enumerate(c_spans) if a < span[1] and b > span[0]]
        if not pieces:
            out.append(0.0)
            continue
        vec = c_vecs[pieces].mean(axis=0)
        vec /= max(float(np.linalg.norm(vec)), 1e-9)
        out.append(float((e_vecs @ vec).max()))
    return out
