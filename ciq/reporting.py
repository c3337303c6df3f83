"""Rich tables for benchmark reports: one row per group (overall, per source, ...)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):  # a latency summary
        return f"{value.get('median_ms', 0):.1f} / {value.get('p95_ms', 0):.1f}"
    return str(value)


def render_groups(title: str, groups: dict[str, dict[str, dict]], console: Console) -> None:
    """Print ``groups`` (kind → name → row of metrics) as one table per kind.

    Latency summaries print as "median / p95" (ms). The columns are every metric any
    row has (answerable and unanswerable rows report different measures).
    """
    for kind, named in groups.items():
        if not named:
            continue
        columns = list(dict.fromkeys(c for row in named.values() for c in row))  # rows may differ
        table = Table(title=f"{title} — {kind}", title_justify="left")
        table.add_column(kind)
        for column in columns:
            label = column.replace("median_ms", "median ms").replace("p95_ms", "p95 ms")
            table.add_column(label, justify="right")
        for name, row in named.items():
            table.add_row(Text(name), *(_cell(row.get(c, "")) for c in columns))
        console.print(table)
