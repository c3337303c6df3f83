"""Two re-ingests into one workspace at the same moment both succeed on PostgreSQL
(issue 12: "two re-ingests into one workspace at the same moment can deadlock").

A re-ingest removes a chunk's terms from the workspace's counts, then adds the new
text's terms, in one transaction. The schedule below is the one that deadlocked: the
first re-ingest has removed its chunk (holding its terms' count rows), the second starts
removing another chunk, takes a count row the first one's new text needs, and waits on a
row the first one holds. PostgreSQL's deadlock detector then failed one of them. With the
workspace's write lock (``retrieval.fts_postgres._serialise``) the second waits before it
takes anything, and both commit.

SQLite has one writer per database file, so the schedule cannot happen there.
"""

import threading
import time

import pytest
from django.db import connection, connections, transaction

from ciq.services import workspace_get_or_create
from retrieval.fts import fts_add, fts_document_frequencies, fts_rebuild, fts_remove
from retrieval.models import Chunk
from retrieval.services import documents_ingest
from tests.conftest import SAMPLES_DIR

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite has one writer: no interleaving"),
    pytest.mark.django_db(transaction=True),
]

DOCS = [SAMPLES_DIR / "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md",
        SAMPLES_DIR / "municipal/us-or-rivergrove/ordinances/2011-Ord-80-2011-Park-Hours.md"]
FIRST = "000aaa"  # sorts before every term of the documents: taken first by any write


def _rows(workspace, title_part):
    chunk = (Chunk.objects.filter(document__workspace=workspace, document__title__icontains=title_part)
             .select_related("document").order_by("pk").first())
    return [(chunk.pk, chunk.text, chunk.heading, chunk.document.title)]


def _waiting_on_a_lock(pid: int) -> bool:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return bool(row) and row[0] == "Lock"


def test_two_reingests_into_one_workspace_at_the_same_moment_both_commit():
    workspace = workspace_get_or_create(name="Concurrent re-ingests")
    summary = documents_ingest(workspace=workspace, paths=DOCS)
    assert summary.failed == 0
    docks, park = _rows(workspace, "Docks"), _rows(workspace, "Park")
    # The park chunk's indexed text holds FIRST; the docks chunk's new text will too.
    with transaction.atomic():
        fts_remove(workspace.pk, [park[0][0]])
        fts_add(workspace.pk, [(park[0][0], park[0][1] + f" {FIRST}", park[0][2], park[0][3])])
    new_docks = [(docks[0][0], docks[0][1] + f" {FIRST}", docks[0][2], docks[0][3])]

    removed, go_on = threading.Event(), threading.Event()
    second_pid: list[int] = []
    errors: list[BaseException] = []

    def first():
        try:
            with transaction.atomic():
                fts_remove(workspace.pk, [docks[0][0]])
                removed.set()
                go_on.wait(timeout=30)
                fts_add(workspace.pk, new_docks)
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)
        finally:
            connection.close()

    def second():
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                second_pid.append(cursor.fetchone()[0])
            with transaction.atomic():
                fts_remove(workspace.pk, [park[0][0]])
                fts_add(workspace.pk, park)
        except BaseException as error:  # noqa: BLE001
            errors.append(error)
        finally:
            connection.close()

    one = threading.Thread(target=first)
    one.start()
    assert removed.wait(timeout=30)
    two = threading.Thread(target=second)
    two.start()
    for _ in range(600):  # until the second re-ingest waits on a lock the first one holds
        if second_pid and _waiting_on_a_lock(second_pid[0]):
            break
        time.sleep(0.05)
    go_on.set()
    one.join(timeout=60)
    two.join(timeout=60)

    assert errors == []
    _, counted = fts_document_frequencies(workspace.pk, ["dock", "park", FIRST])
    assert counted[FIRST] == 1  # the docks chunk's new text; the park chunk's old text is gone
    fts_rebuild(workspace.pk)  # from the chunks as stored: the same counts but for FIRST
    _, rebuilt = fts_document_frequencies(workspace.pk, ["dock", "park"])
    assert {t: counted[t] for t in ("dock", "park")} == rebuilt
