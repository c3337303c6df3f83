"""Production-safe defaults (issue 11, item 4): the serving commands run the production
settings with a generated secret; JSON errors on the API always; a strict
Content-Security-Policy; ``Cache-Control: no-store`` everywhere; the schema and docs
pages need a signed-in caller; ``check --deploy`` is clean."""

import os
import stat
import subprocess
import sys

import pytest
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from tests.api_support import session_run, token_client

pytestmark = pytest.mark.django_db

BASE = settings.BASE_DIR


def run_manage(*args, tmp_path, **env):
    """``manage.py ARGS`` as an operator runs it: no DJANGO_SETTINGS_MODULE, no SECRET_KEY."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DEBUG")}
    clean.update({"SECRET_KEY_FILE": str(tmp_path / "secret_key"),
                  "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", **env})
    return subprocess.run([sys.executable, "manage.py", *args], cwd=BASE, env=clean,
                          capture_output=True, text=True, timeout=120)


SHOW = "from django.conf import settings as s; print(s.SETTINGS_MODULE, s.DEBUG, s.SECRET_KEY)"


def test_manage_py_defaults_to_production_settings_with_a_generated_secret(tmp_path):
    first = run_manage("shell", "-v", "0", "-c", SHOW, tmp_path=tmp_path)
    assert first.returncode == 0, first.stderr
    module, debug, key = first.stdout.split()
    assert (module, debug) == ("ciq.settings.prod", "False")
    assert key != "insecure-dev-key-change-me-in-production" and len(key) >= 50
    key_file = tmp_path / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert key_file.read_text().strip() == key
    again = run_manage("shell", "-v", "0", "-c", SHOW, tmp_path=tmp_path)
    assert again.stdout.split()[2] == key  # generated once, then reused


def test_a_secret_key_from_the_environment_wins(tmp_path):
    shown = run_manage("shell", "-v", "0", "-c", SHOW, tmp_path=tmp_path,
                       SECRET_KEY="k" * 20 + "from-the-env" * 4)
    assert shown.stdout.split()[2].endswith("from-the-env")
    assert not (tmp_path / "secret_key").exists()


def test_the_asgi_and_wsgi_modules_and_the_procfile_default_to_production():
    for module in ("ciq/asgi.py", "ciq/wsgi.py", "manage.py"):
        assert 'setdefault("DJANGO_SETTINGS_MODULE", "ciq.settings.prod")' in (BASE / module).read_text()
    procfile = (BASE / "Procfile").read_text()
    assert "ciq.settings.dev" not in procfile and "DEBUG" not in procfile
    assert "DEBUG = env.bool" not in (BASE / "ciq" / "settings" / "base.py").read_text()


def test_check_deploy_is_clean_with_the_production_environment(tmp_path):
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", tmp_path=tmp_path,
                        ALLOWED_HOSTS="ciq.example.com")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_pages_api_answers_and_exports_are_not_stored(owner, demo_workspace,
                                                      django_capture_on_commit_callbacks):
    browser = Client()
    responses = [browser.get("/login/")]
    browser.force_login(owner)
    responses.append(browser.get("/", follow=True))
    api = token_client(owner)
    session = session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    responses += [api.get("/api/v1/workspaces/"), api.get("/api/v1/nope/"),
                  api.get(f"/api/v1/sessions/{session['id']}/export/?format=md"),
                  browser.post(f"/sessions/{session['id']}/export/md/")]
    for response in responses:
        assert response.status_code in (200, 404), response
        assert "no-store" in response.get("Cache-Control", ""), (response, response.request)


def test_pages_carry_a_strict_content_security_policy(owner):
    browser = Client()
    browser.force_login(owner)
    policy = browser.get("/", follow=True)["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    for name in ("script-src", "style-src", "img-src", "connect-src", "default-src"):
        assert directives[name] == "'self'"
    assert "unsafe-inline" not in policy and directives["frame-ancestors"] == "'none'"


def test_no_template_has_an_inline_script_or_style():
    import re

    for path in (BASE / "templates").rglob("*.html"):
        html = re.sub(r"{% comment %}.*?{% endcomment %}", "", path.read_text(), flags=re.S)
        assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", html), path
        assert "<style" not in html and " style=" not in html, path
        assert not re.search(r"\son[a-z]+=", html), path


@pytest.mark.parametrize("debug", [False, True])
def test_an_unknown_api_url_answers_json_404(debug, settings, owner):
    settings.DEBUG = debug
    response = token_client(owner).get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json" and response.json() == {"detail": "Not Found."}


@pytest.mark.parametrize("debug", [False, True])
def test_a_crash_under_the_api_answers_json_500_without_a_traceback(debug, settings, owner, monkeypatch):
    from ciq.api.views.workspaces import WorkspaceListView

    settings.DEBUG = debug

    def boom(self):
        raise RuntimeError("/srv/secret/path exploded")

    monkeypatch.setattr(WorkspaceListView, "get_queryset", boom)
    api = token_client(owner)
    api.raise_request_exception = False
    response = api.get("/api/v1/workspaces/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Internal Server Error."}


@pytest.mark.parametrize("url", ["/api/schema/", "/api/docs/"])
def test_the_schema_and_docs_pages_need_a_signed_in_caller(url, owner):
    assert APIClient().get(url).status_code == 401
    browser = Client()
    browser.force_login(owner)
    assert browser.get(url).status_code == 200


def test_the_docs_page_loads_its_init_script_from_a_url(owner):
    browser = Client()
    browser.force_login(owner)
    html = browser.get("/api/docs/").content.decode()
    assert "script=" in html
    script = browser.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
