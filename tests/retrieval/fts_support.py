"""Counting rows of the lexical index (``retrieval.fts``) in tests, on either database:
each workspace's FTS5 table on SQLite, ``retrieval_lexical`` on PostgreSQL."""

from django.db import connection

from ciq.models import Workspace
from retrieval.fts import fts_exists, fts_table
from retrieval.fts_postgres import phrase_terms, tsquery_any


def fts_rows() -> int:
    """Rows of the lexical index in every workspace."""
    pks = list(Workspace.objects.values_list("pk", flat=True))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT count(*) FROM retrieval_lexical WHERE workspace_id = ANY(%s)", [pks])
            return cursor.fetchone()[0]
        total = 0
        for pk in pks:
            if fts_exists(pk):
                cursor.execute(f"SELECT COUNT(*) FROM {fts_table(pk)}")
                total += cursor.fetchone()[0]
    return total


def fts_match(word: str) -> int:
    """Rows holding ``word`` across every workspace's lexical index."""
    pks = list(Workspace.objects.values_list("pk", flat=True))
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT count(*) FROM retrieval_lexical WHERE workspace_id = ANY(%s) "
                           "AND tsv @@ %s::tsquery", [pks, tsquery_any(phrase_terms([word]))])
            return cursor.fetchone()[0]
        total = 0
        for pk in pks:
            if fts_exists(pk):
                table = fts_table(pk)
                cursor.execute(f'SELECT COUNT(*) FROM {table} WHERE {table} MATCH %s', [f'"{word}"'])
                total += cursor.fetchone()[0]
    return total
