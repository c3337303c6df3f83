"""``evaluate answers``: the whole pipeline on each question of a labelled set.

Per question: whether the answer cites the gold document, and the turn metrics of
DESIGN.md §1 (evidence coverage, citation density, contradiction and gap rates, time
to first delta, total time). Reported overall and per ``source``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ciq.metrics import latency_summary, mean
from retrieval.evaluation import corpus_workspace, document_paths, group_keys, load_jsonl
from sessions.services import session_ask
from verification.citations import cited_ids


def evaluate_answers(
    *, data: Path, corpus: Path, mode: str = "answer", verification_mode: str = "strict",
    limit: int | None = None, workspace_name: str | None = None,
) -> dict:
    """Ask every question (or the first ``limit``) and summarise.

    Returns ``{"ingest": {...}, "groups": {"overall": {"all": row}, "source": {...}}}``;
    a row has ``n``, ``cites_gold_document`` (share in [0, 1]), mean
    ``evidence_coverage``, ``citation_density`` (citations / paragraph),
    ``contradiction_rate``, ``gap_rate``, ``errors``, and latency summaries
    ``first_delta`` and ``total`` (median, p95 ms).
    """
    items = load_jsonl(data)[:limit] if limit else load_jsonl(data)
    workspace, ingest = corpus_workspace(corpus, name=workspace_name)
    paths = document_paths(workspace, corpus)
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for item in items:
        turn = session_ask(
            workspace=workspace, question=item["question"], mode=mode,
            verification_mode=verification_mode, jurisdictions=item.get("jurisdictions") or [],
        )
        by_chunk = {s["chunk_id"]: s["document_id"] for s in turn.sources}
        cited_docs = {paths.get(by_chunk.get(cid)) for cid in cited_ids(turn.answer_markdown)}
        m = turn.metrics or {}
        record = {
            "error": turn.status == "error",
            "cites_gold": item["doc_path"] in cited_docs,
            "coverage": m.get("evidence_coverage", 0.0),
            "density": m.get("citation_density", 0.0),
            "contradiction": m.get("contradiction_rate", 0.0),
            "gap": m.get("gap_rate", 0.0),
            "first_delta": m.get("time_to_first_token_ms") or 0.0,
            "total": m.get("total_ms", 0.0),
        }
        for key in group_keys(item):
            rows[key].append(record)

    groups: dict[str, dict[str, dict]] = {kind: {} for kind, _ in group_keys({})}
    for (kind, name), records in sorted(rows.items()):
        groups[kind][name] = {
            "n": len(records),
            "errors": sum(r["error"] for r in records),
            "cites_gold_document": round(mean([r["cites_gold"] for r in records]), 4),
            "evidence_coverage": round(mean([r["coverage"] for r in records]), 4),
            "citation_density": round(mean([r["density"] for r in records]), 4),
            "contradiction_rate": round(mean([r["contradiction"] for r in records]), 4),
            "gap_rate": round(mean([r["gap"] for r in records]), 4),
            "first_delta": latency_summary([r["first_delta"] for r in records]),
            "total": latency_summary([r["total"] for r in records]),
        }
    return {"data": str(data), "corpus": str(corpus), "ingest": ingest, "mode": mode,
            "groups": dict(groups)}
