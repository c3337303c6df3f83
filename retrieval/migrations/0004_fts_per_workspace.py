"""One FTS5 table per workspace instead of one for all (``retrieval.fts``; issues 11, 12).

Forward: each workspace's chunks move to ``retrieval_fts_<pk>``; the shared table, its
vocabulary and its triggers are dropped (writes are now made by ``retrieval.services``
and ``retrieval.signals``). Backward: the shared table of migration 0002 comes back,
filled from the chunks. SQLite only, like 0002.
"""

from django.db import migrations

from retrieval.fts import fts_drop, fts_rebuild

SHARED = ["retrieval_document_fts_au", "retrieval_chunk_fts_au", "retrieval_chunk_fts_ad",
          "retrieval_chunk_fts_ai"]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for trigger in SHARED:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    schema_editor.execute("DROP TABLE IF EXISTS retrieval_chunk_fts_vocab")
    schema_editor.execute("DROP TABLE IF EXISTS retrieval_chunk_fts")
    for pk in apps.get_model("ciq", "Workspace").objects.values_list("pk", flat=True):
        fts_rebuild(pk)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    from importlib import import_module

    shared = import_module("retrieval.migrations.0002_chunk_fts")
    for pk in apps.get_model("ciq", "Workspace").objects.values_list("pk", flat=True):
        fts_drop(pk)
    for sql in shared.FORWARD:
        schema_editor.execute(sql)
    schema_editor.execute(
        "INSERT INTO retrieval_chunk_fts (rowid, text, heading, title) SELECT c.id, c.text, "
        "c.heading, d.title FROM retrieval_chunk AS c JOIN retrieval_document AS d ON d.id = c.document_id")


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0003_chunk_vector"), ("ciq", "0002_drop_plaintext_api_tokens")]

    operations = [migrations.RunPython(forward, backward)]
