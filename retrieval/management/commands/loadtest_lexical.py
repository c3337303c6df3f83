"""``manage.py loadtest_lexical``: lexical query latency at 10k, 100k, 1M chunks.

For each ``--chunks`` N, a scratch workspace ``scale:N`` is synthesised from ``--source``
(an ingested workspace, by default the evaluation corpus's; ``retrieval.scale``) unless
it already holds N chunks, and every question of ``--data`` is searched once in it for
its top 40. Then the source workspace itself is measured again, with the large ones
beside it in the same database (one firm's size must not slow another's). Prints one
row per workspace — chunks, documents, synthesis seconds, query p50 / p95 ms — with the
database and the machine's core count; ``--json`` prints the rows as JSON.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from rich.console import Console
from rich.table import Table

from ciq.models import Workspace
from retrieval.evaluation import load_jsonl
from retrieval.models import Chunk, Document
from retrieval.scale import ScalePoint, lexical_latency, workspace_synthesise


class Command(BaseCommand):
    help = "Lexical query p50/p95 in workspaces of N chunks synthesised from an ingested one."

    def add_arguments(self, parser):
        parser.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000],
                            help="Workspace sizes to measure (default: 10000 100000).")
        parser.add_argument("--source", default="eval:ciq_legal_v1",
                            help="Ingested workspace whose chunks are copied.")
        parser.add_argument("--data", type=Path, required=True,
                            help="JSONL whose 'question' fields are searched (e.g. retrieval_dev.jsonl).")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        try:
            source = Workspace.objects.get(name=options["source"])
        except Workspace.DoesNotExist:
            raise CommandError(f"--source {options['source']!r}: no such workspace "
                               "(ingest it first).") from None
        if not options["data"].is_file():
            raise CommandError(f"--data {options['data']}: no such file.")
        questions = [item["question"] for item in load_jsonl(options["data"]) if item.get("question")]
        points = []
        for size in options["chunks"]:
            try:
                workspace, seconds = workspace_synthesise(source=source, name=f"scale:{size}", chunks=size)
            except ValueError as exc:
                raise CommandError(str(exc)) from None
            points.append(_point(workspace, seconds, questions))
        points.append(_point(source, 0.0, questions))
        if options["json"]:
            self.stdout.write(json.dumps([asdict(p) for p in points], indent=2))
            return
        table = Table(title=f"Lexical query latency, top 40 ({connection.vendor}, {os.cpu_count()} cores, "
                            f"{len(questions)} questions)")
        for column in ("workspace", "chunks", "documents", "synthesis s", "p50 ms", "p95 ms"):
            table.add_column(column, justify="left" if column == "workspace" else "right")
        for p in points:
            table.add_row(p.workspace, f"{p.chunks:,}", f"{p.documents:,}", f"{p.synthesis_seconds:.1f}",
                          f"{p.latency['median_ms']:.1f}", f"{p.latency['p95_ms']:.1f}")
        Console(file=self.stdout, width=160).print(table)


def _point(workspace: Workspace, seconds: float, questions: list[str]) -> ScalePoint:
    return ScalePoint(
        workspace=workspace.name, chunks=Chunk.objects.filter(document__workspace=workspace).count(),
        documents=Document.objects.filter(workspace=workspace).count(),
        synthesis_seconds=round(seconds, 1), latency=lexical_latency(workspace, questions),
    )
