"""Offline evaluation of the Judge on labelled claims (``manage.py evaluate verification``).

Input: JSON Lines, one ``{"id", "source", "claim", "label", "dataset"?}`` object per line,
``label`` in supported | not_supported | contradicted (see ``shared/bench/README.md``).
The source is cut into chunks the way ingestion cuts documents, every chunk is passed as
evidence and cited by the claim (so strict mode applies), and the Judge's verdict is mapped
to the three gold classes: supported → supported, contradicted → contradicted, weak and
not_found → not_supported.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ciq.metrics import latency_summary
from ciq.roles import role_backend
from ciq.text import STOPWORDS
from retrieval.chunking import chunk_text
from verification.judge import EvidenceChunk
from verification.models import Verdict
from verification.skeptic import ClaimDraft, claim_type, substantive_words

CLASSES = ("supported", "not_supported", "contradicted")
_PREDICTED = {
    Verdict.SUPPORTED.value: "supported",
    Verdict.WEAK.value: "not_supported",
    Verdict.NOT_FOUND.value: "not_supported",
    Verdict.CONTRADICTED.value: "contradicted",
}
_PRONOUNS = frozenset("both they he she it its their neither either these those this each".split())
QA_RE = re.compile(r"^\s*Question:\s*(?P<q>.*?)\s*\n\s*Answer:\s*(?P<a>.*)$", re.DOTALL)


def _source_chunks(source: str) -> list[EvidenceChunk]:
    """Chunks of one source, cut by the ingestion chunker (``retrieval.chunking``), so the
    Judge sees the passages it would see in a turn. Ids are 12-hex digests of the text."""
    pieces = [source[c.char_start : c.char_end] for c in chunk_text(source)]
    return [
        EvidenceChunk(hashlib.sha256(f"{i}:{p}".encode()).hexdigest()[:12], p)
        for i, p in enumerate(pieces)
        if p.strip()
    ]


def claim_from_item(item: dict) -> str:
    """The sentence the Judge checks for one benchmark item.

    A HaluEval-style ``"Question: …\\nAnswer: …"`` claim is judged by its answer alone: the
    answer is what may be hallucinated, and the question's words would match the source
    whether or not the answer is right. A bare "yes" answer asserts the question itself
    ("Are X and Y both plants?" → "Are X and Y both plants"); a bare "no" denies it (the
    same sentence with "not" after its first word, so the Judge's negation check applies).
    Any other claim is used as written.
    """
    claim = item["claim"]
    m = QA_RE.match(claim)
    if not m:
        return claim.strip()
    question, answer = m.group("q").strip().rstrip("?").strip(), m.group("a").strip()
    polar = answer.lower().strip(" .!")
    if polar in ("yes", "no") and question:
        if polar == "yes":
            return question
        first, _, rest = question.partition(" ")
        return f"{first} not {rest}"
    # "Both are American authors": the pronoun's referents are named in the question.
    first_word = answer.split(maxsplit=1)[0].lower().strip("\"'") if answer else ""
    if first_word in _PRONOUNS:
        capitalised = re.findall(r"\b[A-Z][\w'’.-]*", question)
        names = " ".join(w for w in capitalised if w.lower() not in STOPWORDS)
        if names:
            return f"{names}: {answer}"
    return answer


def binary_and_class_metrics(gold: Sequence[str], predicted: Sequence[str]) -> dict:
    """Balanced accuracy, per-class precision/recall/F1, macro-F1 and the confusion matrix.

    Balanced accuracy treats "supported" as the positive class and everything else as
    negative: ``(TPR + TNR) / 2`` (0.5 by convention for a missing class). For each class
    c: precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2PR / (P + R), each 0.0
    when undefined. Macro-F1 is the mean F1 over the three classes; ``macro_f1_gold_classes``
    averages only the classes that occur in the gold labels (HaluEval has no contradicted
    items). ``confusion[g][p]`` counts gold class g predicted as p.
    """
    confusion = {g: {p: 0 for p in CLASSES} for g in CLASSES}
    for g, p in zip(gold, predicted, strict=False):
        confusion[g][p] += 1
    pos = [g == "supported" for g in gold]
    hit = [p == "supported" for p in predicted]
    tp = sum(a and b for a, b in zip(pos, hit, strict=False))
    tn = sum(not a and not b for a, b in zip(pos, hit, strict=False))
    n_pos, n_neg = sum(pos), len(pos) - sum(pos)
    tpr = tp / n_pos if n_pos else 0.5
    tnr = tn / n_neg if n_neg else 0.5
    per_class = {}
    for c in CLASSES:
        tp_c = confusion[c][c]
        fp_c = sum(confusion[g][c] for g in CLASSES if g != c)
        fn_c = sum(confusion[c][p] for p in CLASSES if p != c)
        precision = tp_c / (tp_c + fp_c) if tp_c + fp_c else 0.0
        recall = tp_c / (tp_c + fn_c) if tp_c + fn_c else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[c] = {"precision": precision, "recall": recall, "f1": f1, "support": tp_c + fn_c}
    present = [c for c in CLASSES if per_class[c]["support"]]
    return {
        "n": len(gold),
        "balanced_accuracy": (tpr + tnr) / 2,
        "accuracy": sum(g == p for g, p in zip(gold, predicted, strict=False)) / len(gold) if gold else 0.0,
        "per_class": per_class,
        "macro_f1": sum(per_class[c]["f1"] for c in CLASSES) / len(CLASSES),
        "macro_f1_gold_classes": (
            sum(per_class[c]["f1"] for c in present) / len(present) if present else 0.0
        ),
        "confusion": confusion,
    }


def evaluate_verification(path: Path, *, mode: str = "strict") -> dict:
    """Run the rule Judge over a JSONL file and report accuracy and speed.

    Returns ``{"mode", "path", "overall": metrics, "datasets": {name: metrics}, "items":
    [{"id", "dataset", "label", "predicted", "verdict", "score", "reasoning"}, ...]}``;
    each metrics dict is :func:`binary_and_class_metrics` plus ``median_ms`` and
    ``p95_ms``: per-claim time of the configured Judge's ``verify()`` in milliseconds,
    including the preparation of a source's chunks the first time the source is seen,
    as in a turn, where the first claim pays for preparing the retrieved chunks. Items
    without a ``dataset`` go under "all". Raises ``ValueError``
    on a line that is not valid JSON or lacks ``source``/``claim``/``label``, or has an
    unknown label.
    """
    judge = role_backend("judge")
    gold_by: dict[str, list[str]] = defaultdict(list)
    pred_by: dict[str, list[str]] = defaultdict(list)
    ms_by: dict[str, list[float]] = defaultdict(list)
    kinds: dict[str, list[tuple[str, str]]] = defaultdict(list)
    rows: list[dict] = []
    chunk_cache: dict[str, list[EvidenceChunk]] = {}
    with Path(path).open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                source, label, _ = item["source"], item["label"], item["claim"]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(
                    f"{path}:{lineno}: not a {{source, claim, label}} object ({exc})"
                ) from exc
            if label not in CLASSES:
                raise ValueError(f"{path}:{lineno}: unknown label {label!r}")
            chunks = chunk_cache.get(source)
            if chunks is None:
                chunks = chunk_cache[source] = _source_chunks(source)
            text = claim_from_item(item)
            claim = ClaimDraft(
                text=text,
                type=claim_type(text),
                span=(0, len(text)),
                cited_chunk_ids=tuple(c.chunk_id for c in chunks),
                substantive_words=substantive_words(text),
            )
            t0 = time.perf_counter()
            judgement = judge.verify(claim, chunks, mode=mode)
            elapsed = (time.perf_counter() - t0) * 1000.0
            predicted = _PREDICTED[judgement.verdict]
            dataset = item.get("dataset") or "all"
            gold_by[dataset].append(label)
            pred_by[dataset].append(predicted)
            ms_by[dataset].append(elapsed)
            if item.get("kind"):
                kinds[item["kind"]].append((label, predicted))
            rows.append({"id": item.get("id", str(lineno)), "dataset": dataset, "label": label,
                         "kind": item.get("kind", ""), "predicted": predicted,
                         "verdict": judgement.verdict, "score": judgement.score,
                         "reasoning": judgement.reasoning})
    datasets = {}
    for name in sorted(gold_by):
        metrics = binary_and_class_metrics(gold_by[name], pred_by[name])
        datasets[name] = metrics | latency_summary(ms_by[name])
    all_gold = [g for name in sorted(gold_by) for g in gold_by[name]]
    all_pred = [p for name in sorted(gold_by) for p in pred_by[name]]
    all_ms = [m for name in sorted(gold_by) for m in ms_by[name]]
    overall = binary_and_class_metrics(all_gold, all_pred) | latency_summary(all_ms)
    return {"mode": mode, "path": str(path), "overall": overall, "datasets": datasets,
            "kinds": kind_summary(kinds), "items": rows}


def kind_summary(kinds: dict[str, list[tuple[str, str]]]) -> dict[str, dict]:
    """Per kind of claim (issue 10's table: paraphrase, verbatim, number, modality,
    negated, party, extra, …): ``n``, ``right`` (share predicted exactly as labelled) and
    ``caught`` (share whose supported/not-supported side is right: a contradiction judged
    weak is caught, though not named a contradiction). ``kinds`` maps kind → [(gold,
    predicted), ...]."""
    out = {}
    for kind in sorted(kinds):
        pairs = kinds[kind]
        out[kind] = {
            "n": len(pairs),
            "label": pairs[0][0],
            "right": sum(g == p for g, p in pairs) / len(pairs),
            "caught": sum((g == "supported") == (p == "supported") for g, p in pairs) / len(pairs),
        }
    return out


def render_verification_report(report: dict, console: Console) -> None:
    """Print ``report`` (from :func:`evaluate_verification`) as rich tables."""
    summary = Table(title=f"Judge evaluation ({report['mode']} mode) — {escape(report['path'])}")
    for col in ("dataset", "n", "balanced acc.", "macro-F1", "F1 supported", "F1 not supp.",
                "F1 contradicted", "median ms", "p95 ms"):
        summary.add_column(col, justify="left" if col == "dataset" else "right")
    sections = list(report["datasets"].items()) + [("overall", report["overall"])]
    for name, m in sections:
        pc = m["per_class"]
        summary.add_row(
            Text(name), str(m["n"]), f"{m['balanced_accuracy']:.3f}", f"{m['macro_f1']:.3f}",
            f"{pc['supported']['f1']:.3f}", f"{pc['not_supported']['f1']:.3f}",
            f"{pc['contradicted']['f1']:.3f}", f"{m['median_ms']:.2f}", f"{m['p95_ms']:.2f}",
        )
    console.print(summary)
    if report.get("kinds"):
        kinds = Table(title="Per kind of claim")
        for col in ("kind", "gold label", "n", "right (exact class)", "caught (supported or not)"):
            kinds.add_column(col, justify="left" if col in ("kind", "gold label") else "right")
        for kind, k in report["kinds"].items():
            kinds.add_row(Text(kind), k["label"], str(k["n"]), f"{k['right']:.0%}",
                          f"{k['caught']:.0%}")
        console.print(kinds)
    for name, m in sections:
        table = Table(title=f"{escape(name)}: gold (rows) × predicted (columns)")
        table.add_column("gold")
        for c in CLASSES:
            table.add_column(c, justify="right")
        table.add_column("P / R", justify="right")
        for g in CLASSES:
            pc = m["per_class"][g]
            table.add_row(g, *(str(m["confusion"][g][p]) for p in CLASSES),
                          f"{pc['precision']:.2f} / {pc['recall']:.2f}")
        console.print(table)
