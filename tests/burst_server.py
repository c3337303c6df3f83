"""A multi-threaded CIQ web server on a file-backed SQLite database, for the write-burst
test (``tests/test_write_burst.py``); run as ``python -m tests.burst_server``.

The settings are the test settings with the database from ``DATABASE_URL`` (a fresh
file: ``ciq.settings.base`` gives it the production options) and the database task
backend of production, so a new session queues its run instead of running it in the
request. It migrates, creates two firms, each a user with a workspace, and prints one
JSON line ``{"port", "firms": [{"username", "password", "token", "workspace"}, ...]}``
before serving. Each request runs in its own thread with its own connection, as several
web processes and the workers do on one database: harsher than daphne alone, which
runs synchronous views one at a time.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ciq.settings.test")


def main() -> None:
    import django
    from django.conf import settings

    assert settings.DATABASES["default"]["NAME"] not in ("", ":memory:"), "a file database"
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend",
                                  "QUEUES": settings.TASK_QUEUES}}
    django.setup()

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    from ciq.api.tokens import token_create
    from ciq.models import Membership
    from ciq.services import membership_add, workspace_get_or_create

    call_command("migrate", verbosity=0, interactive=False)
    firms = []
    for name in ("a", "b"):
        user = get_user_model().objects.create_user(f"burst-{name}", password=f"pw-burst-{name}-123")
        workspace = workspace_get_or_create(name=f"Firm {name.upper()}")
        membership_add(user=user, workspace=workspace, role=Membership.Role.OWNER)
        firms.append({"username": user.username, "password": f"pw-burst-{name}-123",
                      "token": token_create(user=user)[1], "workspace": workspace.pk})

    class Server(ThreadedWSGIServer):
        request_queue_size = 256  # a burst of connections at once, none refused

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args) -> None:
            pass

    httpd = Server(("127.0.0.1", 0), Quiet, allow_reuse_address=True)
    httpd.set_app(get_wsgi_application())
    print(json.dumps({"port": httpd.server_address[1], "firms": firms}), flush=True)
    sys.stdout.flush()
    httpd.serve_forever()


if __name__ == "__main__":
    main()
