"""The hand-written legal validation set (issue 10).

``verification/data/legal_claims.json`` holds, per passage, the document, an anchor
sentence copied from it and hand-written claims with their kind; the claims were written
against the passage alone. :func:`build_legal_set` turns it into the evaluation format
(``verification/data/legal_pairs.jsonl``): the source is the anchor sentence with one
sentence on each side, as ingestion and the Judge split the document.
"""

from __future__ import annotations

import json
from pathlib import Path

from verification.training.corpus import LABEL_OF_KIND, document_sentences, passage_around

DATA = Path(__file__).resolve().parent.parent / "data"
CLAIMS_FILE = DATA / "legal_claims.json"
PAIRS_FILE = DATA / "legal_pairs.jsonl"
# Hand-written training pairs: other documents than the validation set's, same form.
TRAINING_FILE = DATA / "judge_training_handwritten.json"


def _find(sentences: tuple[str, ...], anchor: str) -> int:
    anchor = " ".join(anchor.split())
    for i, sent in enumerate(sentences):
        if anchor in sent or sent in anchor and len(sent) > 0.6 * len(anchor):
            return i
    raise ValueError(f"anchor not found: {anchor[:80]!r}")


def build_legal_set(corpus: Path, claims_file: Path = CLAIMS_FILE, *,
                    dataset: str = "legal") -> list[dict]:
    """Items ``{"id", "dataset", "doc", "level", "kind", "source", "claim", "label"}`` of
    a file of hand-written claims (the validation set by default; the hand-written
    training pairs, :data:`TRAINING_FILE`, have the same form). Raises ``ValueError`` when
    an anchor is not in its document (the corpus changed)."""
    from verification.training.corpus import manifest

    rows = manifest(corpus)
    items = []
    for p, passage in enumerate(json.loads(claims_file.read_text(encoding="utf-8")), 1):
        sentences = document_sentences(corpus / passage["doc"])
        source = passage_around(sentences, _find(sentences, passage["anchor"]))
        for c, (kind, claim) in enumerate(passage["claims"], 1):
            items.append({
                "id": f"{dataset}-{p:03d}-{c}", "dataset": dataset, "doc": passage["doc"],
                "level": rows[passage["doc"]]["jurisdiction_level"], "kind": kind,
                "source": source, "claim": claim, "label": LABEL_OF_KIND[kind],
            })
    return items


def write_jsonl(path: Path, items: list[dict]) -> None:
    """Write ``items`` as JSON Lines (UTF-8), the format ``evaluate verification`` reads."""
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")


def write_legal_set(corpus: Path, path: Path = PAIRS_FILE) -> int:
    """Write :func:`build_legal_set` as JSON Lines; returns the number of items."""
    items = build_legal_set(corpus)
    write_jsonl(path, items)
    return len(items)
