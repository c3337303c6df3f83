"""The lexical index's impact-ordered postings on PostgreSQL (``retrieval.fts_postgres``):
one row per (chunk, term) with the term's BM25 weight in the chunk and the chunk's
jurisdiction and lane (the search filters), read per query term best first (issue 12: a
lexical query at 1M chunks). A no-op on SQLite.

Forward also indexes the chunks already in the database, postings included (it took
that over from migration 0005, which ran before this table existed); backward drops the
table.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE TABLE retrieval_lexical_posting (
        chunk_id bigint NOT NULL,
        term text NOT NULL,
        workspace_id bigint NOT NULL,
        impact real NOT NULL,
        jurisdiction text NOT NULL,
        lane text NOT NULL,
        PRIMARY KEY (chunk_id, term)
    )
    """,
    # A term's postings of one workspace, best first, ties in chunk order, with the
    # filters' columns: a search reads the first M of each query term in its lane and
    # jurisdictions from this index alone (no row fetched once the table is vacuumed, no
    # chunk joined), whatever the workspace's size.
    "CREATE INDEX retrieval_lexical_posting_impact ON retrieval_lexical_posting "
    "(workspace_id, term, impact DESC, chunk_id) INCLUDE (lane, jurisdiction)",
]

BACKWARD = ["DROP TABLE IF EXISTS retrieval_lexical_posting"]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from retrieval.fts import fts_rebuild

    for sql in FORWARD:
        schema_editor.execute(sql)
    for pk in apps.get_model("ciq", "Workspace").objects.values_list("pk", flat=True):
        fts_rebuild(pk)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in BACKWARD:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0008_document_workspace_sha256")]

    operations = [migrations.RunPython(forward, backward)]
