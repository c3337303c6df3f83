"""``evaluate answers``: the whole pipeline on each question of a labelled set.

Two formats (``shared/bench/README.md``):

- retrieval questions (``retrieval_dev.jsonl``): whether the answer cites the gold
  document, and the turn metrics of DESIGN.md §1 (evidence coverage, citation density,
  contradiction and gap rates, time to first delta, total time), overall and per
  ``source``;
- user questions (``user_questions_dev.jsonl``, items with ``answerable``): asked with
  no jurisdiction flag, as a user would. Answerable items: correct (every answer key in
  the answer, the gold document cited, not declined), keys alone, gold document cited,
  gold passage in the context, false decline. Unanswerable items: declined, false
  assurance (not declined and claim confidence high or medium). Per ``kind``.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ciq.metrics import latency_summary, mean
from retrieval.evaluation import (
    collapse,
    corpus_workspace,
    document_paths,
    group_keys,
    holds_gold,
    load_jsonl,
)
from sessions.models import Outcome
from sessions.services import session_ask
from verification.citations import cited_ids

# A claim confidence at these levels reads as an assurance (bench README, "false assurance").
ASSURING_LEVELS = ("high", "medium")


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
    if items and all("answerable" in item for item in items):
        return evaluate_user_questions(
            items=items, data=data, corpus=corpus, mode=mode,
            verification_mode=verification_mode, workspace_name=workspace_name,
        )
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


def key_present(key: str | list[str], text: str) -> bool:
    """Whether an answer key (one string, or a list of alternatives) occurs in ``text``,
    case-insensitively with whitespace collapsed."""
    haystack = collapse(text).lower()
    alternatives = [key] if isinstance(key, str) else key
    return any(collapse(alt).lower() in haystack for alt in alternatives)


def evaluate_user_questions(
    *, items: list[dict], data: Path, corpus: Path, mode: str = "answer",
    verification_mode: str = "strict", workspace_name: str | None = None,
) -> dict:
    """Ask every user question with no jurisdiction flag and score it as the bench README
    says. Returns ``{"ingest", "groups": {"overall": {"answerable": row, "unanswerable":
    row}, "kind": {"<kind>/<answerable|unanswerable>": row}}, "items": [...]}``.

    An answerable row: ``n``, ``correct``, ``keys``, ``cites_gold_document``,
    ``gold_in_context``, ``false_decline`` (shares in [0, 1]); an unanswerable row: ``n``,
    ``declined``, ``false_assurance``; both: ``errors`` and ``total`` (median, p95 ms).
    """
    workspace, ingest = corpus_workspace(corpus, name=workspace_name)
    paths = document_paths(workspace, corpus)
    rows: dict[tuple[str, str], list[dict]] = defaultdict(list)
    details = []
    for item in items:
        turn = session_ask(workspace=workspace, question=item["question"], mode=mode,
                           verification_mode=verification_mode)
        declined = turn.outcome == Outcome.NOT_ANSWERED
        level = (turn.claim_confidence or {}).get("level", "")
        record = {"error": turn.status == "error", "declined": declined,
                  "total": (turn.metrics or {}).get("total_ms", 0.0)}
        if item["answerable"]:
            doc_of = {s["chunk_id"]: paths.get(s["document_id"]) for s in turn.sources}
            cited = {doc_of.get(cid) for cid in cited_ids(turn.answer_markdown)}
            quotes = item.get("gold_quotes") or []
            keys = all(key_present(k, turn.answer_markdown) for k in item["answer_keys"])
            record |= {
                "keys": keys,
                "cites_gold": item["doc_path"] in cited,
                "gold_in_context": any(doc_of.get(s["chunk_id"]) == item["doc_path"]
                                       and holds_gold(s["text"], quotes) for s in turn.sources),
            }
            record["correct"] = keys and record["cites_gold"] and not declined
        else:
            record["false_assurance"] = not declined and level in ASSURING_LEVELS
        group = "answerable" if item["answerable"] else "unanswerable"
        rows[("overall", group)].append(record)
        rows[("kind", f"{item.get('kind', 'other')}/{group}")].append(record)
        details.append({"id": item.get("id"), "question": item["question"], "group": group,
                        "outcome": turn.outcome, "level": level, **record,
                        "answer": turn.answer_markdown})

    groups: dict[str, dict[str, dict]] = {"overall": {}, "kind": {}}
    for (kind, name), records in sorted(rows.items()):
        row: dict = {"n": len(records), "errors": sum(r["error"] for r in records)}
        if name.endswith("unanswerable"):
            row["declined"] = round(mean([r["declined"] for r in records]), 4)
            row["false_assurance"] = round(mean([r["false_assurance"] for r in records]), 4)
        else:
            for measure in ("correct", "keys", "cites_gold", "gold_in_context"):
                column = "cites_gold_document" if measure == "cites_gold" else measure
                row[column] = round(mean([r[measure] for r in records]), 4)
            row["false_decline"] = round(mean([r["declined"] for r in records]), 4)
        row["total"] = latency_summary([r["total"] for r in records])
        groups[kind][name] = row
    return {"data": str(data), "corpus": str(corpus), "ingest": ingest, "mode": mode,
            "groups": groups, "items": details}
