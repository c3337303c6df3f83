"""``manage.py reference_stats --workspace Demo``: write the reference document
frequencies (``retrieval/data/reference_df.json``) that smooth every workspace's term
statistics (``retrieval.fts.smoothed_idf``). Run it on a workspace that holds only
public documents: the bundled samples (``make demo`` loads them into "Demo")."""

import json

from django.core.management.base import BaseCommand, CommandError

from ciq.models import Workspace
from retrieval.fts import REFERENCE_PATH, fts_document_frequencies


class Command(BaseCommand):
    help = "Write the reference document frequencies from a workspace of public documents."

    def add_arguments(self, parser):
        parser.add_argument("--workspace", default="Demo", help="workspace of public documents")
        parser.add_argument("--out", default=str(REFERENCE_PATH), help="file to write")

    def handle(self, *args, workspace, out, **options):
        ws = Workspace.objects.filter(name=workspace).first()
        if ws is None:
            raise CommandError(f"no workspace named {workspace!r}")
        n, df = fts_document_frequencies(ws.pk)
        if not n:
            raise CommandError(f"workspace {workspace!r} has no indexed chunks")
        data = {"source": f"workspace {workspace!r} (public documents only)", "chunks": n,
                "df": dict(sorted(df.items()))}
        with open(out, "w") as f:
            json.dump(data, f, separators=(",", ":"))
        self.stdout.write(f"{len(df)} terms over {n} chunks written to {out}")
