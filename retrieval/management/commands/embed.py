"""``manage.py embed --workspace NAME [--all]``: embed a workspace's chunks with the
configured embedder (``CIQ_EMBEDDER``) and, with ``CIQ_INDEX=pinecone``, push the vectors
to its Pinecone namespace.

Thin: find the workspace, call :func:`retrieval.services.workspace_embed`, print the
summary. Only chunks without a vector of the embedder are embedded unless ``--all``.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ciq.models import Workspace
from retrieval.embedders import EmbeddingError
from retrieval.pinecone_index import PineconeSyncError
from retrieval.services import workspace_embed


class Command(BaseCommand):
    help = "Embed a workspace's chunks (CIQ_EMBEDDER) and push them to Pinecone (CIQ_INDEX=pinecone)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, metavar="NAME")
        parser.add_argument("--all", action="store_true",
                            help="Embed every chunk again, not only those without a vector.")

    def handle(self, *args, **options) -> None:
        workspace = Workspace.objects.filter(name=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"No workspace named {options['workspace']!r}.")
        try:
            summary = workspace_embed(workspace=workspace, everything=options["all"])
        except (ImproperlyConfigured, EmbeddingError, PineconeSyncError) as exc:
            raise CommandError(f"{exc} Chunks embedded before the failure are kept.") from None
        rate = summary.embedded / summary.seconds if summary.seconds else 0.0
        self.stdout.write(
            f"{summary.model}: embedded {summary.embedded} chunks in {summary.seconds:.1f} s "
            f"({rate:.0f} chunks/s); {summary.vectors} of {summary.chunks} chunks have vectors"
            + (f"; {summary.pushed} pushed to Pinecone" if summary.pushed else "") + "."
        )
