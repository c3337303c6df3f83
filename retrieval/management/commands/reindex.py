"""``manage.py reindex [--workspace NAME]``: rebuild workspaces' lexical index (and, on
PostgreSQL, their term counts) from their chunks (after a restore from backup, or to repair a table)."""

from django.core.management.base import BaseCommand, CommandError

from ciq.models import Workspace
from retrieval.fts import fts_rebuild


class Command(BaseCommand):
    help = "Rebuild the lexical index of one workspace, or of every workspace, from its chunks."

    def add_arguments(self, parser):
        parser.add_argument("--workspace", help="workspace name (default: every workspace)")

    def handle(self, *args, workspace=None, **options):
        workspaces = Workspace.objects.order_by("pk")
        if workspace:
            workspaces = workspaces.filter(name=workspace)
            if not workspaces.exists():
                raise CommandError(f"no workspace named {workspace!r}")
        for ws in workspaces:
            self.stdout.write(f"{ws.name}: {fts_rebuild(ws.pk)} chunks indexed")
