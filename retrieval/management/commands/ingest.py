"""``manage.py ingest PATH... --workspace NAME [--manifest manifest.csv]``.

Thin: parse the arguments, call :func:`retrieval.services.documents_ingest`, render the
progress and the summary (with one line naming files in the folders that were skipped
for an unsupported type). Bad files are reported and counted, not fatal: the exit code
is non-zero only for usage errors (a missing path, a bad manifest, an empty workspace
name).
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ciq.services import workspace_get_or_create
from retrieval.manifest import ManifestError
from retrieval.services import IngestResult, IngestStatus, collect_files, documents_ingest

SKIPPED_NAMES_SHOWN = 5  # file names listed in the "Skipped ..." line


class Command(BaseCommand):
    help = "Ingest files and folders (recursively) into a workspace: extract, chunk, index."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                            help="Files or folders to ingest.")
        parser.add_argument("--workspace", required=True, metavar="NAME",
                            help="Workspace to ingest into (created if absent).")
        parser.add_argument("--manifest", type=Path, default=None, metavar="CSV",
                            help="Metadata CSV (path,title,jurisdiction,jurisdiction_level,"
                                 "source_type,citation_label,last_updated); paths relative "
                                 "to its folder.")

    def handle(self, *args, **options) -> None:
        paths: list[Path] = options["paths"]
        manifest: Path | None = options["manifest"]
        verbosity: int = options["verbosity"]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"No such file or folder: {', '.join(missing)}")
        if manifest is not None and not manifest.is_file():
            raise CommandError(f"No such manifest: {manifest}")
        try:
            workspace = workspace_get_or_create(name=options["workspace"])
        except ValueError as exc:
            raise CommandError(str(exc)) from None

        stream = getattr(self.stdout, "_out", self.stdout)
        console = Console(file=stream, highlight=False, soft_wrap=True)
        try:
            collected = collect_files(paths)
        except FileNotFoundError as exc:
            raise CommandError(str(exc)) from None
        total = len(collected.files)
        show_bar = console.is_terminal and verbosity > 0 and total > 1

        def report(result: IngestResult, out: Console) -> None:
            if result.status == IngestStatus.FAILED:
                out.print(f"[red]FAILED[/red] {escape(result.path)}: {escape(result.error)}")
            elif result.warning:
                out.print(f"[yellow]WARNING[/yellow] {escape(result.path)}: {escape(result.warning)}")
            elif verbosity >= 2:
                out.print(f"{result.status:<9} {escape(result.path)} ({result.chunks} chunks)")

        try:
            if show_bar:
                with Progress(
                    TextColumn("Ingesting"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=True,
                ) as bar:
                    task = bar.add_task("ingest", total=total)

                    def progress(result: IngestResult) -> None:
                        report(result, bar.console)
                        bar.advance(task)

                    summary = documents_ingest(workspace=workspace, paths=collected,
                                               manifest=manifest, progress=progress)
            else:
                summary = documents_ingest(workspace=workspace, paths=collected,
                                           manifest=manifest,
                                           progress=lambda result: report(result, console))
        except (FileNotFoundError, ManifestError) as exc:
            raise CommandError(str(exc)) from None

        if verbosity > 0:
            console.print(
                f"Ingested {summary.documents} document(s) into {escape(workspace.name)!r} "
                f"in {summary.seconds:.1f} s: {summary.created} created, "
                f"{summary.updated} updated, {summary.unchanged} unchanged, "
                f"{summary.failed} failed; {summary.chunks} chunks; "
                f"{summary.bytes / 1e6:.1f} MB read, {summary.mb_per_second:.2f} MB/s."
            )
            if summary.skipped:
                console.print(skipped_line(summary.skipped))


def skipped_line(skipped: list[str]) -> str:
    """The line ``Skipped N file(s) with unsupported types: a.xyz, b.bin…``, naming the
    first few of ``skipped`` (paths) by file name."""
    names = ", ".join(escape(Path(p).name) for p in skipped[:SKIPPED_NAMES_SHOWN])
    more = "…" if len(skipped) > SKIPPED_NAMES_SHOWN else ""
    return f"Skipped {len(skipped)} file(s) with unsupported types: {names}{more}"
