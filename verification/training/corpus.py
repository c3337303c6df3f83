"""Reading the corpus for training and validation pairs: document text as ingestion
extracts it, and evidence passages (a sentence with its neighbours)."""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

from retrieval.extract import extract_text
from verification.evidence import split_sentences

LABEL_OF_KIND = {
    "paraphrase": "supported",
    "verbatim": "supported",
    "number": "contradicted",
    "modality": "contradicted",
    "negated": "contradicted",
    "party": "contradicted",
    "extra": "not_supported",
    "unrelated": "not_supported",
}


def manifest(corpus: Path) -> dict[str, dict]:
    """``{relative path: manifest row}`` of a corpus folder (``manifest.csv``)."""
    with (corpus / "manifest.csv").open(encoding="utf-8") as handle:
        return {row["path"]: row for row in csv.DictReader(handle)}


def document_text(path: Path) -> str:
    """The document's text as ingestion extracts it."""
    return extract_text(path).text


@lru_cache(maxsize=256)
def document_sentences(path: Path) -> tuple[str, ...]:
    """The document's sentences as the Judge splits evidence, whitespace collapsed."""
    text = extract_text(path).text
    return tuple(" ".join(text[s:e].split()) for s, e in split_sentences(text))


def passage_around(sentences: tuple[str, ...], index: int, *, before: int = 1,
                   after: int = 1) -> str:
    """The sentence at ``index`` with its neighbours, joined by spaces."""
    lo, hi = max(0, index - before), min(len(sentences), index + after + 1)
    return " ".join(sentences[lo:hi])
