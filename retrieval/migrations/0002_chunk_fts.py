"""The lexical index: an FTS5 table over chunk text, heading and document title.

Kept in step with ``retrieval_chunk`` and ``retrieval_document`` by triggers, so bulk
inserts, updates and cascading deletes all reach the index. SQLite only: on another
database the index is a different backend (DESIGN.md §5) and this migration does nothing.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE VIRTUAL TABLE retrieval_chunk_fts USING fts5(
        text, heading, title, tokenize = 'porter unicode61 remove_diacritics 2'
    )
    """,
    "CREATE VIRTUAL TABLE retrieval_chunk_fts_vocab USING fts5vocab(retrieval_chunk_fts, 'row')",
    """
    CREATE TRIGGER retrieval_chunk_fts_ai AFTER INSERT ON retrieval_chunk BEGIN
        INSERT INTO retrieval_chunk_fts (rowid, text, heading, title)
        VALUES (new.id, new.text, new.heading,
                (SELECT title FROM retrieval_document WHERE id = new.document_id));
    END
    """,
    """
    CREATE TRIGGER retrieval_chunk_fts_ad AFTER DELETE ON retrieval_chunk BEGIN
        DELETE FROM retrieval_chunk_fts WHERE rowid = old.id;
    END
    """,
    """
    CREATE TRIGGER retrieval_chunk_fts_au AFTER UPDATE OF text, heading ON retrieval_chunk BEGIN
        UPDATE retrieval_chunk_fts SET text = new.text, heading = new.heading
        WHERE rowid = new.id;
    END
    """,
    """
    CREATE TRIGGER retrieval_document_fts_au AFTER UPDATE OF title ON retrieval_document BEGIN
        UPDATE retrieval_chunk_fts SET title = new.title
        WHERE rowid IN (SELECT id FROM retrieval_chunk WHERE document_id = new.id);
    END
    """,
]

BACKWARD = [
    "DROP TRIGGER IF EXISTS retrieval_document_fts_au",
    "DROP TRIGGER IF EXISTS retrieval_chunk_fts_au",
    "DROP TRIGGER IF EXISTS retrieval_chunk_fts_ad",
    "DROP TRIGGER IF EXISTS retrieval_chunk_fts_ai",
    "DROP TABLE IF EXISTS retrieval_chunk_fts_vocab",
    "DROP TABLE IF EXISTS retrieval_chunk_fts",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "sqlite":
            return
        for sql in statements:
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0001_initial")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
