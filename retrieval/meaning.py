"""Words matched by meaning: contextual MiniLM word-piece vectors, shared by the Judge's
soft alignment (``verification.alignment``) and the reading of a sentence against the
question (``retrieval.relevance``, issue 9).

A word of one text is compared with every word piece of another: its vector is the mean
of its own pieces' contextual vectors, and its similarity the largest cosine to a piece
of the other text, a BERTScore-style greedy match (Zhang et al., 2020, "BERTScore:
Evaluating Text Generation with BERT", ICLR). Vectors are cached per text (LRU,
:data:`CACHE_TEXTS`), and :func:`prefetch` computes many texts in one batch.

The model is the bundled all-MiniLM-L6-v2 of the ``minilm`` extra; every function raises
``ImproperlyConfigured`` (naming the install command) when the extra is missing.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np
from django.conf import settings

CACHE_TEXTS = 4096
_vectors: OrderedDict[str, tuple[list[tuple[int, int]], np.ndarray]] = OrderedDict()


@cache
def minilm():
    """The MiniLM embedder words are compared with (one per process; the model loads once)."""
    from retrieval.embedders import MiniLMEmbedder

    return MiniLMEmbedder()


def minilm_flag(variable: str) -> bool:
    """Whether the environment variable ``variable`` turns a reading with MiniLM on:
    ``on`` / ``off`` / ``auto`` (auto, the default: on when ``CIQ_EMBEDDER=minilm``, so a
    deployment that loads MiniLM for retrieval uses it and nothing else pays for loading
    the model)."""
    flag = os.environ.get(variable, "auto").strip().lower()
    if flag in ("1", "on", "true", "yes"):
        return True
    if flag in ("0", "off", "false", "no"):
        return False
    return getattr(settings, "CIQ_EMBEDDER", "none") == "minilm"


def relevance_by_meaning() -> bool:
    """Whether a sentence's relevance to the question may be read by meaning
    (``CIQ_RELEVANCE_MINILM``, :func:`minilm_flag`)."""
    return minilm_flag("CIQ_RELEVANCE_MINILM")


def _remember(text: str, found: tuple[list[tuple[int, int]], np.ndarray]) -> None:
    _vectors[text] = found
    if len(_vectors) > CACHE_TEXTS:
        _vectors.popitem(last=False)


def token_vectors(text: str) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The character span of each word piece of ``text`` and a pieces × 384 matrix of
    their unit vectors (cached)."""
    found = _vectors.get(text)
    if found is None:
        found = minilm().token_vectors(text)
        _remember(text, found)
    else:
        _vectors.move_to_end(text)
    return found


def prefetch(texts: Iterable[str]) -> None:
    """Compute the word-piece vectors of every text of ``texts`` not cached yet, in one
    batch (a sentence at a time costs a model call each)."""
    todo = list(dict.fromkeys(t for t in texts if t not in _vectors))
    if todo:
        for text, found in zip(todo, minilm().token_vectors_many(todo), strict=True):
            _remember(text, found)


def word_spans(text: str, words: Sequence[str]) -> list[tuple[int, int] | None]:
    """The character span of the first whole-word occurrence of each of ``words`` in
    ``text`` (case-insensitive), None where a word does not occur."""
    spans: list[tuple[int, int] | None] = []
    for word in words:
        m = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE)
        spans.append((m.start(), m.end()) if m else None)
    return spans


def word_similarities(text: str, words: Sequence[str], other: str, *,
                      skip: Sequence[tuple[int, int]] = ()) -> list[float]:
    """For each of ``words`` (words of ``text``), the largest cosine in [-1, 1] between its
    contextual vector and a word piece of ``other`` that overlaps none of the character
    spans ``skip``; 0.0 for a word not found in ``text`` or when no piece is left."""
    if not words:
        return []
    t_spans, t_vecs = token_vectors(text)
    o_spans, o_vecs = token_vectors(other)
    free = [i for i, (a, b) in enumerate(o_spans)
            if not any(a < end and b > start for start, end in skip)]
    if not len(t_vecs) or not free:
        return [0.0] * len(words)
    o_vecs = o_vecs[free]
    out = []
    for span in word_spans(text, words):
        pieces = [] if span is None else [
            i for i, (a, b) in enumerate(t_spans) if a < span[1] and b > span[0]]
        if not pieces:
            out.append(0.0)
            continue
        vec = t_vecs[pieces].mean(axis=0)
        vec /= max(float(np.linalg.norm(vec)), 1e-9)
        out.append(float((o_vecs @ vec).max()))
    return out
