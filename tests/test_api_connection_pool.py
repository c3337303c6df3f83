"""PostgreSQL connections under many API requests at once (issue 12, load through the API).

With persistent connections (``CONN_MAX_AGE=60``) every daphne request thread kept a
connection of its own: 50 sessions polling their turns at once ran the throwaway server
past ``max_connections`` (100), and 45–71 answers were 500 "too many clients already".
On PostgreSQL each process now borrows from a psycopg-pool of ``DATABASE_POOL_SIZE``
connections (Django's ``DATABASES["default"]["OPTIONS"]["pool"]``), and SQLite is as it
was. The settings tests run everywhere (a subprocess reads the settings for a PostgreSQL
URL, no server needed); the burst runs a real daphne on the test database under
``make test-postgres``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from urllib.parse import quote

import httpx
import pytest
from django.conf import settings
from django.db import connection

from ciq.api.tokens import token_create
from tests.api_support import token_client
from tests.servers import daphne_start, processes_stop, prod_env

SHOW = ("import json; from django.conf import settings as s; d = s.DATABASES['default']; "
        "print(json.dumps({'conn_max_age': d.get('CONN_MAX_AGE', 0), "
        "'pool': d.get('OPTIONS', {}).get('pool'), 'health_checks': d.get('CONN_HEALTH_CHECKS')}))")


def database_settings(tmp_path, url: str, **env: str) -> dict:
    """The default database's CONN_MAX_AGE, pool options and health checks under the
    production settings with ``DATABASE_URL=url`` (nothing connects)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    clean.update({"DJANGO_SETTINGS_MODULE": "ciq.settings.prod", "SECRET_KEY": "k" * 50,
                  "DATABASE_URL": url, **env})
    shown = subprocess.run([sys.executable, "-c", f"import django; django.setup(); {SHOW}"],
                           cwd=settings.BASE_DIR, env=clean, capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout.strip().splitlines()[-1])


POSTGRES_URL = "postgres://ciq@127.0.0.1:5432/ciq"


def test_postgresql_borrows_from_a_pool_and_keeps_no_connection_per_thread(tmp_path):
    shown = database_settings(tmp_path, POSTGRES_URL)
    assert shown["conn_max_age"] == 0  # Django refuses a pool with persistent connections
    assert shown["pool"] == {"min_size": 2, "max_size": 8, "timeout": 20.0}
    assert shown["health_checks"] is True
    # Eight per process: daphne and eleven workers stay under max_connections = 100.
    assert 12 * shown["pool"]["max_size"] < 100


def test_the_pool_is_sized_by_the_environment_and_zero_turns_it_off(tmp_path):
    sized = database_settings(tmp_path, POSTGRES_URL, DATABASE_POOL_SIZE="3",
                              DATABASE_POOL_MIN_SIZE="5", DATABASE_POOL_TIMEOUT="4.5")
    assert sized["pool"] == {"min_size": 3, "max_size": 3, "timeout": 4.5}
    # A conn_max_age in the URL cannot switch the pool off by making Django refuse it.
    assert database_settings(tmp_path, POSTGRES_URL + "?conn_max_age=60")["conn_max_age"] == 0
    off = database_settings(tmp_path, POSTGRES_URL, DATABASE_POOL_SIZE="0")
    assert (off["pool"], off["conn_max_age"]) == (None, 0)
    assert database_settings(tmp_path, POSTGRES_URL + "?conn_max_age=30",
                             DATABASE_POOL_SIZE="0")["conn_max_age"] == 30


def test_sqlite_has_no_pool_and_is_unchanged(tmp_path):
    shown = database_settings(tmp_path, f"sqlite:///{tmp_path / 'db.sqlite3'}")
    assert (shown["pool"], shown["conn_max_age"]) == (None, 0)


@pytest.mark.django_db
def test_no_free_connection_within_the_pool_timeout_is_a_503_to_retry(owner, demo_workspace, monkeypatch):
    from django.db import OperationalError
    from psycopg_pool import PoolTimeout

    def exhausted(**kwargs):
        # What Django raises when ConnectionPool.getconn() times out.
        raise OperationalError("couldn't get a connection after 20.00 sec") from PoolTimeout()

    monkeypatch.setattr("ciq.api.views.sessions.session_start", exhausted)
    response = token_client(owner).post("/api/v1/sessions/", {
        "workspace": demo_workspace.pk, "query": "How late is the Rivergrove park open?"}, format="json")
    assert (response.status_code, response["Retry-After"]) == (503, "5")
    assert response.json() == {"detail": "Every database connection is in use; nothing was changed. "
                                         "Try again shortly."}


# The burst: more requests at once than PostgreSQL's default max_connections (100).
REQUESTS = 150
POOL_SIZE = 4
APPLICATION = "ciq-pool-test"


async def burst(url: str, token: str) -> list[tuple[int, str]]:
    """``REQUESTS`` token-authenticated GETs sent at once: (status, body start) each."""
    limits = httpx.Limits(max_connections=REQUESTS)
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Token {token}"},
                                 timeout=httpx.Timeout(120), limits=limits) as client:
        responses = await asyncio.gather(*(client.get("/api/v1/workspaces/") for _ in range(REQUESTS)))
    return [(r.status_code, r.text[:200]) for r in responses]


def daphne_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [APPLICATION])
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the pool is PostgreSQL's (make test-postgres)")
@pytest.mark.django_db(transaction=True)
def test_a_burst_of_api_requests_stays_within_the_pool(tmp_path, django_user_model):
    from ciq.services import membership_add, workspace_get_or_create

    workspace = workspace_get_or_create(name="Burst")
    user = django_user_model.objects.create_user("burst", password="pw-burst-123")
    membership_add(user=user, workspace=workspace)
    token = token_create(user=user)[1]
    db = connection.settings_dict
    auth = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
    url = (f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
           f"?application_name={APPLICATION}")
    env = prod_env(tmp_path, DATABASE_URL=url, DATABASE_POOL_SIZE=str(POOL_SIZE))
    process, port = daphne_start(env, tmp_path / "daphne.log")
    try:
        answers = asyncio.run(burst(f"http://127.0.0.1:{port}", token))
        held = daphne_connections()
    finally:
        processes_stop([process])
    failures = [a for a in answers if a[0] != 200]
    assert not failures, (len(failures), failures[:3], (tmp_path / "daphne.log").read_text()[-2000:])
    assert all(workspace.name in body for _, body in answers)
    # The pool keeps what it opened, never more than its size (one per thread before).
    assert 0 < held <= POOL_SIZE
