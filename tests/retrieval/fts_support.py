"""Counting rows of the per-workspace lexical index tables (``retrieval.fts``) in tests."""

from django.db import connection

from ciq.models import Workspace
from retrieval.fts import fts_exists, fts_table


def fts_rows() -> int:
    """Rows in every workspace's FTS5 table."""
    total = 0
    with connection.cursor() as cursor:
        for pk in Workspace.objects.values_list("pk", flat=True):
            if fts_exists(pk):
                cursor.execute(f"SELECT COUNT(*) FROM {fts_table(pk)}")
                total += cursor.fetchone()[0]
    return total


def fts_match(term: str) -> int:
    """Rows holding ``term`` (an FTS5 query) across every workspace's table."""
    total = 0
    with connection.cursor() as cursor:
        for pk in Workspace.objects.values_list("pk", flat=True):
            if fts_exists(pk):
                table = fts_table(pk)
                cursor.execute(f"SELECT COUNT(*) FROM {table} WHERE {table} MATCH %s", [term])
                total += cursor.fetchone()[0]
    return total
