"""The lexical index on PostgreSQL (``retrieval.fts_postgres``): the tsvector table with
its GIN index, and each workspace's term statistics. A no-op on SQLite, whose index is
the FTS5 tables of migrations 0002 and 0004.

Backward drops the tables. The chunks already in the database (a database moved from
another engine by dumpdata/loaddata, say) are indexed by migration 0009, once the
postings table it creates exists.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE TABLE retrieval_lexical (
        chunk_id bigint PRIMARY KEY,
        workspace_id bigint NOT NULL,
        length integer NOT NULL,
        tsv tsvector NOT NULL
    )
    """,
    # A tsvector stays in the row uncompressed (up to a row of 8,160 bytes; a chunk's is
    # 2 kB on average): ranking reads it once per phrase, and decompressing it each time
    # made a search about twice as slow (retrieval.fts_postgres.fts_search).
    "ALTER TABLE retrieval_lexical SET (toast_tuple_target = 8160)",
    "ALTER TABLE retrieval_lexical ALTER COLUMN tsv SET STORAGE MAIN",
    "CREATE INDEX retrieval_lexical_tsv ON retrieval_lexical USING gin (tsv)",
    "CREATE INDEX retrieval_lexical_workspace ON retrieval_lexical (workspace_id)",
    """
    CREATE TABLE retrieval_lexical_df (
        workspace_id bigint NOT NULL,
        term text NOT NULL,
        df integer NOT NULL,
        PRIMARY KEY (workspace_id, term)
    )
    """,
    """
    CREATE TABLE retrieval_lexical_stats (
        workspace_id bigint PRIMARY KEY,
        chunks bigint NOT NULL,
        tokens bigint NOT NULL
    )
    """,
]

BACKWARD = [
    "DROP TABLE IF EXISTS retrieval_lexical_stats",
    "DROP TABLE IF EXISTS retrieval_lexical_df",
    "DROP TABLE IF EXISTS retrieval_lexical",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in FORWARD:
        schema_editor.execute(sql)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in BACKWARD:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0004_fts_per_workspace")]

    operations = [migrations.RunPython(forward, backward)]
