"""Terminal rendering of a turn with rich: answer with numbered citations, sources,
ledger and confidences. Document and user text is printed as plain ``Text`` (never
parsed as rich markup)."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from verification.citations import number_citations

VERDICT_STYLE = {
    "supported": "green", "weak": "yellow", "not_found": "magenta", "contradicted": "red",
}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def source_line(source: dict) -> str:
    """``12 CFR § 1006.8 (US, federal)`` style reference of a source snapshot: its
    pinpoint citation (document, section, pages) and jurisdiction."""
    label = (source.get("pinpoint") or source.get("citation_label")
             or source.get("document_title") or "?")
    return f"{label} ({source.get('jurisdiction')}, {source.get('jurisdiction_level')})"


OUTCOME_TITLES = {"answered": " — answered", "partial": " — partially answered",
                  "not_answered": " — NOT ANSWERED by the documents"}


def render_turn(data: dict, console: Console) -> None:
    """Print a turn given as ``sessions.selectors.turn_as_dict`` data."""
    console.rule(Text(f"Q: {data['question'][:200]}", style="bold"))
    if data["status"] == "error":
        console.print(Text(f"Error: {data['error']}", style="bold red"))
    answer = number_citations(data["answer_markdown"]) or "(no answer)"
    outcome = OUTCOME_TITLES.get(data.get("outcome") or "", "")
    console.print(Panel(Text(answer), title=f"Answer ({data['mode']}){outcome}", expand=True))

    sources = {s["chunk_id"]: s for s in data["sources"]}
    if data["citations"]:
        lines = Text()
        for c in data["citations"]:
            source = sources.get(c["chunk_id"], {})
            lines.append(f"[{c['number']}] ", style="bold")
            lines.append(f"{source_line(source)} — {source.get('document_title', '')}"
                         f"  ·  chunk {c['chunk_id']}\n")
        console.print(Panel(lines, title="Sources"))

    numbers = {c["chunk_id"]: c["number"] for c in data["citations"]}
    table = Table(title="Evidence ledger", show_lines=False, expand=True)
    for column, kwargs in (("#", {"justify": "right"}), ("Claim", {"ratio": 5}),
                           ("Type", {}), ("Verdict", {}), ("Score", {"justify": "right"}),
                           ("Conf.", {"justify": "right"}), ("Source", {})):
        table.add_column(column, **kwargs)
    for row in data["ledger"]:
        source = sources.get(row["evidence_chunk_id"], {})
        where = ""
        if row["evidence_chunk_id"]:
            number = numbers.get(row["evidence_chunk_id"])
            pinpoint = row.get("pinpoint") or source.get("pinpoint") or ""
            where = (f"[{number}] {pinpoint}" if number else
                     f"{pinpoint or row['evidence_chunk_id']}").strip()
        table.add_row(
            str(row["index"]), Text(_clip(row["claim"], 220)), row["type"],
            Text(row["verdict"], style=VERDICT_STYLE.get(row["verdict"], "")),
            f"{row['score']:.2f}", f"{row['confidence']:.2f}", Text(where),
        )
    console.print(table)

    rc, cc, m = data["retrieval_confidence"], data["claim_confidence"], data["metrics"]
    lines = [Text(f"Retrieval confidence: {rc.get('level', '?')} ({rc.get('score', 0):.2f}) — "
                  f"{rc.get('reason', '')}")]
    if data.get("outcome"):
        coverage = data.get("answer_coverage")
        lines.append(Text(f"Outcome: {data['outcome'].replace('_', ' ')}"
                          + (f" (answer coverage {coverage:.0%})" if coverage is not None else "")))
    if cc:
        lines.append(Text(f"Claim confidence: {cc['level']} ({cc['mean']:.2f}) over "
                          f"{cc['claims']} claim(s)"))
        lines += [Text(f"  • {r}") for r in cc.get("recommendations", [])]
    if m:
        lines.append(Text(
            f"Coverage {m['evidence_coverage']:.0%} · citation density "
            f"{m['citation_density']:.2f}/paragraph · contradictions "
            f"{m['contradiction_rate']:.0%} · gaps {m['gap_rate']:.0%} · revisions "
            f"{m['revision_cycles']} · first delta {m['time_to_first_token_ms']} ms · total "
            f"{m['total_ms']} ms"
        ))
    console.print(Panel(Group(*lines), title="Confidence"))
