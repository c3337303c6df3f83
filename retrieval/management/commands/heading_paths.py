"""``manage.py heading_paths --workspace NAME``: give the chunks ingested before heading
paths and sections existed both (:func:`retrieval.heading_paths.heading_paths_backfill`)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ciq.models import Workspace
from retrieval.heading_paths import heading_paths_backfill


class Command(BaseCommand):
    help = "Store heading paths and sections on a workspace's chunks ingested before they existed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, metavar="NAME")

    def handle(self, *args, **options) -> None:
        workspace = Workspace.objects.filter(name=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"No workspace named {options['workspace']!r}.")
        s = heading_paths_backfill(workspace=workspace)
        self.stdout.write(
            f"{s.updated} document(s) given heading paths and sections ({s.chunks} chunks); {s.unchanged} "
            f"already had them; {s.missing} without a readable file and {s.differ} chunked "
            "differently today were left as they are (ingest them again for both).")
