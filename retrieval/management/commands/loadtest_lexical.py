"""``manage.py loadtest_lexical``: lexical query latency at 10k, 100k, 1M chunks.

For each ``--chunks`` N, a scratch workspace ``scale:N`` is synthesised from ``--source``
(an ingested workspace, by default the evaluation corpus's; ``retrieval.scale``) unless
it already holds N chunks, and every question of ``--data`` is searched once in it for
its top 40. Then the source workspace itself is measured again, with the large ones
beside it in the same database (one firm's size must not slow another's). Prints one
row per workspace — chunks, documents, synthesis seconds, query p50 / p95 ms — with the
database and the machine's core count; ``--json`` prints the rows as JSON.

``--peer bm25s --corpus DIR`` measures the source workspace beside a peer engine instead
(``retrieval.peers``, ``retrieval.scale.lexical_peer_compare``): per question one CIQ
search and one peer search, interleaved, ``--runs`` times; it prints p50 / p95 ms of each
per run and their ratio, and span recall@10, document recall@10 and MRR of each (the
``evaluate retrieval`` formulas, ``retrieval.evaluation.recall_row``), with the chunk and
core counts.
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
from retrieval.evaluation import document_paths, load_jsonl
from retrieval.models import Chunk, Document
from retrieval.peers import PEERS, peer_get
from retrieval.scale import ScalePoint, lexical_latency, lexical_peer_compare, workspace_synthesise


class Command(BaseCommand):
    help = "Lexical query p50/p95 in workspaces of N chunks synthesised from an ingested one."

    def add_arguments(self, parser):
        parser.add_argument("--chunks", type=int, nargs="+",
                            help="Workspace sizes to measure (default: 10000 100000; none with --peer).")
        parser.add_argument("--source", default="eval:ciq_legal_v1",
                            help="Ingested workspace whose chunks are copied.")
        parser.add_argument("--data", type=Path, required=True,
                            help="JSONL whose 'question' fields are searched (e.g. retrieval_dev.jsonl).")
        parser.add_argument("--peer", choices=PEERS,
                            help="Compare the source workspace's lexical search with this engine.")
        parser.add_argument("--corpus", type=Path,
                            help="With --peer: the corpus folder the source was ingested from "
                                 "(for recall@10 against the items' doc_path).")
        parser.add_argument("--runs", type=int, default=3, help="With --peer: passes over the questions.")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options):
        try:
            source = Workspace.objects.get(name=options["source"])
        except Workspace.DoesNotExist:
            raise CommandError(f"--source {options['source']!r}: no such workspace "
                               "(ingest it first).") from None
        if not options["data"].is_file():
            raise CommandError(f"--data {options['data']}: no such file.")
        items = [item for item in load_jsonl(options["data"]) if item.get("question")]
        if options["peer"]:
            return self._peer(source, items, options)
        questions = [item["question"] for item in items]
        points = []
        for size in options["chunks"] or [10_000, 100_000]:
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

    def _peer(self, source: Workspace, items: list[dict], options) -> None:
        if options["chunks"]:
            raise CommandError("--peer measures the source workspace; leave out --chunks.")
        if options["runs"] < 1:
            raise CommandError("--runs: give at least 1.")
        corpus = options["corpus"]
        if corpus is not None and not corpus.is_dir():
            raise CommandError(f"--corpus {corpus}: no such folder.")
        try:
            peer = peer_get(options["peer"], source)
        except ImportError:
            raise CommandError(f"--peer {options['peer']}: not installed (pip install -r requirements.lock, "
                               "extra 'bench').") from None
        report = lexical_peer_compare(source, items, peer, runs=options["runs"],
                                      paths=document_paths(source, corpus) if corpus else None)
        report.update(database=connection.vendor, cores=os.cpu_count())
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        name = report["peer"]
        table = Table(title=f"One lexical query, top {report['k']}: CIQ ({report['database']}) and {name}, "
                            f"interleaved per question — {report['workspace']}, {report['chunks']:,} chunks, "
                            f"{report['questions']} questions, {report['cores']} cores")
        for column in ("run", "CIQ p50 ms", "CIQ p95 ms", f"{name} p50 ms", f"{name} p95 ms",
                       "CIQ / peer p50", "CIQ / peer p95"):
            table.add_column(column, justify="right")
        for number, run in enumerate(report["runs"], 1):
            ciq, other = run["ciq"], run["peer"]
            table.add_row(str(number), f"{ciq['median_ms']:.2f}", f"{ciq['p95_ms']:.2f}",
                          f"{other['median_ms']:.2f}", f"{other['p95_ms']:.2f}",
                          f"{_ratio(ciq['median_ms'], other['median_ms'])}",
                          f"{_ratio(ciq['p95_ms'], other['p95_ms'])}")
        console = Console(file=self.stdout, width=160)
        console.print(table)
        if report["recall"]:
            quality = Table(title="Quality of the same searches (first run)")
            for column in ("engine", "span recall@10", "document recall@10", "MRR (top 40)"):
                quality.add_column(column, justify="left" if column == "engine" else "right")
            for key, label in (("ciq", "CIQ"), ("peer", name)):
                row = report["recall"][key]
                quality.add_row(label, f"{row['span_recall@10']:.3f}", f"{row['doc_recall@10']:.3f}",
                                f"{row['mrr']:.3f}")
            console.print(quality)
        self.stdout.write(f"{name} index built in {report['peer_index_seconds']:.2f} s.")


def _ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}×" if theirs > 0 else "—"


def _point(workspace: Workspace, seconds: float, questions: list[str]) -> ScalePoint:
    return ScalePoint(
        workspace=workspace.name, chunks=Chunk.objects.filter(document__workspace=workspace).count(),
        documents=Document.objects.filter(workspace=workspace).count(),
        synthesis_seconds=round(seconds, 1), latency=lexical_latency(workspace, questions),
    )
