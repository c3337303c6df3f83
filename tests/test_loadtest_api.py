"""``manage.py loadtest_api`` (issue 12, load benchmarks): its arithmetic, and a run
through the real REST API of a live server on the sample documents. The test settings'
tasks backend runs each turn inside its POST, holding the database's write lock for the
whole run, so the live run asks one session at a time; ``bin/loadtest-api`` measures
many at once with real workers."""

import io
import json

import pytest
from django.core.management import call_command

from ciq.api.management.commands.loadtest_api import QUESTIONS, Run, summary
from ciq.api.tokens import token_create


def test_a_row_counts_completed_failed_unfinished_and_locked_writes_apart():
    runs = [Run(201, "completed", 2.0), Run(201, "completed", 4.0), Run(201, "failed", 1.0),
            Run(201, "", None, ["GET 503: database is locked"]), Run(500, "", None, ["POST 500: boom"])]
    row = summary(5, runs, wall_s=30.0)
    assert (row["completed"], row["failed"], row["unfinished"]) == (2, 1, 2)
    assert (row["http_errors"], row["database_locked"]) == (2, 1)
    assert row["turns_per_minute"] == 4.0
    assert (row["p50_s"], row["p95_s"]) == (3.0, 3.9)  # ciq.metrics.latency_summary, interpolated
    assert summary(1, [Run(500, "", None, ["POST 500: boom"])], wall_s=1.0)["p95_s"] is None


@pytest.mark.django_db(transaction=True)
def test_sessions_through_the_api_complete_and_are_timed(live_server, django_user_model):
    from ciq.services import membership_add, workspace_get_or_create
    from retrieval.services import documents_ingest
    from tests.conftest import SAMPLES_DIR

    workspace = workspace_get_or_create(name="Load")
    documents_ingest(workspace=workspace, paths=[
        SAMPLES_DIR / "municipal/us-or-rivergrove/ordinances/2011-Ord-80-2011-Park-Hours.md",
        SAMPLES_DIR / "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"])
    user = django_user_model.objects.create_user("loader", password="pw-loader-123")
    membership_add(user=user, workspace=workspace)
    token = token_create(user=user)[1]
    out = io.StringIO()
    call_command("loadtest_api", "--url", live_server.url, "--token", token, "--workspace", "Load",
                 "--concurrency", "1", "1", "--poll", "0.1", "--warmup", "0", "--json", stdout=out)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    counts = [(r["concurrency"], r["completed"], r["failed"], r["http_errors"]) for r in rows]
    assert counts == [(1, 1, 0, 0)] * 2
    assert all(r["runs"][0]["post_status"] == 201 and r["p50_s"] > 0 for r in rows)
    assert len(QUESTIONS) >= 3
