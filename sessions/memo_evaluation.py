"""``evaluate memos``: Draft mode's memo rubric on hand-written requests (issue 13, Targets).

Each line of the data file (``samples/bench/memo_requests.jsonl``) is a request a lawyer
would make, across the corpus (federal CFR, Oregon ORS, Ray County, Rivergrove,
contracts)::

    {"id", "source", "request", "answer_keys": [key | [alternatives]], "excluded": [codes],
     "doc_path"}

Every request is run through the whole pipeline in Draft mode on the evaluation
workspace, with no jurisdiction picked (as a user would ask), and its memo is scored:

``structure``
    The "# MEMORANDUM" title, the To / From / Date / Re lines and the six sections
    (Question Presented, Short Answer, Discussion, Requirements and permits, Open
    questions, Sources) in that order.
``excluded``
    No cited sentence comes from a chunk of an ``excluded`` jurisdiction (the codes the
    request does not ask about; "private" for firm documents).
``keys``
    Every answer key (a string, or a list of alternatives) is in the Short Answer
    (case-insensitive, whitespace collapsed: ``sessions.evaluation.key_present``).
``pinpoints``
    Every citation whose chunk has a heading carries a section number or the heading in
    its pinpoint (a "§", an ORS section, "ch.", "art.", "pt.", "app.", "subpt.",
    "sched.", "ex." or a quoted heading), not only the document's name. A chunk whose
    only heading is the document's own title line (a contract's "CONFIDENTIALITY AND
    NON-DISCLOSURE AGREEMENT") has no section to cite and is not counted. The share is
    reported too.
``total_ms``
    The turn's total time (``Turn.metrics["total_ms"]``: analysis to outcome, in ms).

A memo passes when the four checks hold. The report gives each memo's row and the
shares, and the median and p95 of the total time (the issue's target: ≤ 3 s median on
the embedded default).
"""

from __future__ import annotations

import re
from pathlib import Path

from ciq.metrics import latency_summary, mean
from ciq.models import Workspace
from retrieval.evaluation import corpus_workspace, load_jsonl
from sessions.evaluation import key_present
from sessions.models import Mode
from sessions.services import session_ask
from verification.citations import cited_ids
from verification.skeptic import MEMO_FIELDS, memo_header_end

SECTIONS = ("Question Presented", "Short Answer", "Discussion", "Requirements and permits",
            "Open questions", "Sources")
CHECKS = ("structure", "excluded", "keys", "pinpoints")
_SECTION_MARK_RE = re.compile(
    r"§|\bORS \d+[A-Z]?\.\d+|\b(?:ch|art|pt|app|subpt|sched|ex)\.\s|“[^”]+”")


def memo_sections(text: str) -> dict[str, str]:
    """The memo's "## " sections: heading → body (stripped), in order."""
    return {m.group(1).strip(): m.group(2).strip()
            for m in re.finditer(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, re.M | re.S)}


def has_structure(text: str) -> bool:
    """Whether ``text`` is a memo: the title, the four header fields before the first
    section, and exactly :data:`SECTIONS` in order, none of them empty."""
    end = memo_header_end(text)
    if end is None:
        return False
    header = text[:end]
    if not all(re.search(rf"^\*\*{field}:\*\*\s*\S", header, re.M) for field in MEMO_FIELDS):
        return False
    if tuple(re.findall(r"^## (.+?)\s*$", text, re.M)) != SECTIONS:
        return False
    return all(memo_sections(text).values())


def has_section_heading(source: dict) -> bool:
    """Whether a cited source's chunk has a heading other than its document's title line."""
    heading = " ".join((source.get("heading") or "").split()).lower()
    title = " ".join((source.get("document_title") or "").split()).lower()
    return bool(heading) and not title.startswith(heading)


def pinpointed(source: dict) -> bool:
    """Whether a cited source's pinpoint names a section or heading (module docstring)."""
    return bool(_SECTION_MARK_RE.search(source.get("pinpoint") or ""))


def memo_score(item: dict, turn) -> dict:
    """The rubric of one request's turn: ``{"id", "source", "outcome", "structure",
    "excluded", "keys", "pinpoints", "pinpoint_share", "citations", "claims",
    "evidence_coverage", "total_ms", "passed", "error", "memo"}``."""
    text = turn.answer_markdown or ""
    body = memo_sections(text)
    sources = {s["chunk_id"]: s for s in turn.sources or []}
    cited = [sources[c] for c in dict.fromkeys(cited_ids(text)) if c in sources]
    excluded = set(item.get("excluded") or ())
    with_heading = [s for s in cited if has_section_heading(s)]
    share = mean([pinpointed(s) for s in with_heading]) if with_heading else 1.0
    metrics = turn.metrics or {}
    row = {
        "id": item.get("id"), "source": item.get("source", ""), "outcome": turn.outcome,
        "structure": has_structure(text),
        "excluded": not any(s["jurisdiction"] in excluded for s in cited),
        "keys": all(key_present(k, body.get("Short Answer", "")) for k in item["answer_keys"]),
        "pinpoints": share == 1.0, "pinpoint_share": round(share, 4),
        "citations": len(cited), "claims": metrics.get("claims", 0),
        "evidence_coverage": round(metrics.get("evidence_coverage", 0.0), 4),
        "total_ms": round(metrics.get("total_ms", 0.0), 1),
        "error": turn.status == "error",
        "memo": text,
    }
    row["passed"] = all(row[c] for c in CHECKS) and not row["error"]
    return row


def evaluate_memos(*, data: Path, workspace_name: str | None = None, corpus: Path | None = None,
                   limit: int | None = None) -> dict:
    """Run every memo request (or the first ``limit``) in Draft mode and score it.

    The workspace is ``workspace_name`` (default ``eval:ciq_legal_v1``); with ``corpus``
    it is ingested first (``retrieval.evaluation.corpus_workspace``, idempotent).
    Returns ``{"data", "workspace", "ingest", "items": [row, ...], "summary": {"n",
    "passed", <check>: share, "pinpoint_share", "total": {"median", "p95"}}}`` (shares in
    [0, 1], times in ms). Raises ``ValueError`` when the workspace does not exist.
    """
    items = load_jsonl(data)[:limit] if limit else load_jsonl(data)
    ingest = None
    if corpus is not None:
        workspace, ingest = corpus_workspace(corpus, name=workspace_name)
    else:
        name = workspace_name or "eval:ciq_legal_v1"
        workspace = Workspace.objects.filter(name=name).first()
        if workspace is None:
            raise ValueError(f"No workspace {name!r}: give --corpus to ingest it first.")
    rows = []
    for item in items:
        turn = session_ask(workspace=workspace, question=item["request"], mode=Mode.DRAFT)
        rows.append(memo_score(item, turn))
    summary = {
        "n": len(rows), "passed": sum(r["passed"] for r in rows),
        **{check: round(mean([r[check] for r in rows]), 4) for check in CHECKS},
        "pinpoint_share": round(mean([r["pinpoint_share"] for r in rows]), 4),
        "total": latency_summary([r["total_ms"] for r in rows]),
    }
    return {"data": str(data), "workspace": workspace.name, "ingest": ingest, "items": rows,
            "summary": summary}


def render_memo_report(report: dict, console) -> None:
    """The report as a rich table, one row per memo, then the summary line."""
    from rich.table import Table

    table = Table(title="Memo rubric (Draft mode)")
    for column in ("id", "source", "outcome", "structure", "excluded", "keys", "pinpoints",
                   "citations", "total ms"):
        table.add_column(column, justify="right" if column in ("citations", "total ms") else "left")

    def mark(ok: bool) -> str:
        return "[green]yes[/]" if ok else "[red]no[/]"

    for r in report["items"]:
        table.add_row(r["id"], r["source"], r["outcome"], mark(r["structure"]), mark(r["excluded"]),
                      mark(r["keys"]), f"{mark(r['pinpoints'])} ({r['pinpoint_share']:.0%})",
                      str(r["citations"]), f"{r['total_ms']:.0f}")
    console.print(table)
    s = report["summary"]
    console.print(
        f"{s['passed']}/{s['n']} memos pass every check · structure {s['structure']:.0%} · no excluded "
        f"jurisdiction {s['excluded']:.0%} · keys in the Short Answer {s['keys']:.0%} · pinpoints "
        f"{s['pinpoint_share']:.0%} · total time median {s['total']['median_ms']:.0f} ms, p95 "
        f"{s['total']['p95_ms']:.0f} ms")
