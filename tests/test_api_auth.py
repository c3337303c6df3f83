"""Authentication (token and browser session), throttling, schema and docs pages."""

import pytest
from django.core.cache import cache
from django.core.management import call_command
from rest_framework.test import APIClient
from rest_framework.throttling import UserRateThrottle

from tests.api_support import token_client

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    ("get", "/api/v1/workspaces/"), ("get", "/api/v1/documents/"), ("post", "/api/v1/documents/"),
    ("get", "/api/v1/documents/1/"), ("delete", "/api/v1/documents/1/"),
    ("get", "/api/v1/sessions/"), ("post", "/api/v1/sessions/"), ("get", "/api/v1/sessions/1/"),
    ("post", "/api/v1/sessions/1/turns/"), ("get", "/api/v1/sessions/1/events/"),
    ("get", "/api/v1/sessions/1/ledger/"), ("get", "/api/v1/sessions/1/export/?format=md"),
]


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_every_endpoint_needs_a_signed_in_caller(method, url):
    response = getattr(APIClient(), method)(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_a_wrong_token_is_refused():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.get("/api/v1/workspaces/").status_code == 401


def token_for(username, password):
    return APIClient().post("/api/v1/auth/token/", {"username": username, "password": password})


def client_with(token) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_token_is_issued_for_a_username_and_password(owner):
    response = token_for("owner", "pw-owner-123")
    assert response.status_code == 200
    assert client_with(response.json()["token"]).get("/api/v1/workspaces/").status_code == 200
    wrong = token_for("owner", "nope")
    assert wrong.status_code == 400 and "non_field_errors" in wrong.json()


def test_a_token_is_stored_only_as_a_hash(owner):
    from django.db import connection

    token = token_for("owner", "pw-owner-123").json()["token"]
    with connection.cursor() as cursor:
        tables = [t for t in connection.introspection.table_names(cursor) if "token" in t]
        rows = []
        for table in tables:
            cursor.execute(f'SELECT * FROM "{table}"')  # noqa: S608 (names from introspection)
            rows += [str(value) for row in cursor.fetchall() for value in row]
    assert rows and not any(token in value for value in rows)


def test_a_token_expires_after_the_configured_lifetime(owner):
    from datetime import timedelta

    from django.utils import timezone
    from knox.models import AuthToken

    response = token_for("owner", "pw-owner-123").json()
    row = AuthToken.objects.get(user=owner)
    assert abs(row.expiry - (timezone.now() + timedelta(hours=10))) < timedelta(minutes=1)
    assert response["expiry"]
    AuthToken.objects.filter(pk=row.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    assert client_with(response["token"]).get("/api/v1/workspaces/").status_code == 401


def test_logout_revokes_the_token_used_and_logoutall_every_token(owner):
    first, second, third = (token_for("owner", "pw-owner-123").json()["token"] for _ in range(3))
    assert client_with(first).post("/api/v1/auth/logout/").status_code == 204
    assert client_with(first).get("/api/v1/workspaces/").status_code == 401
    assert client_with(second).get("/api/v1/workspaces/").status_code == 200
    assert client_with(second).post("/api/v1/auth/logoutall/").status_code == 204
    assert client_with(third).get("/api/v1/workspaces/").status_code == 401


def test_a_password_change_revokes_every_token(owner):
    token = token_for("owner", "pw-owner-123").json()["token"]
    owner.set_password("a-brand-new-pw-456")
    owner.save()
    assert client_with(token).get("/api/v1/workspaces/").status_code == 401


def test_saving_a_user_without_a_password_change_keeps_the_tokens(owner):
    token = token_for("owner", "pw-owner-123").json()["token"]
    owner.first_name = "Olive"
    owner.save()
    assert client_with(token).get("/api/v1/workspaces/").status_code == 200


def test_a_deactivated_users_token_is_refused(owner):
    token = token_for("owner", "pw-owner-123").json()["token"]
    owner.is_active = False
    owner.save()
    assert client_with(token).get("/api/v1/workspaces/").status_code == 401


def test_the_admin_never_shows_a_token_or_its_key(owner, django_user_model):
    from django.test import Client
    from knox.models import AuthToken

    token = token_for("owner", "pw-owner-123").json()["token"]
    row = AuthToken.objects.get(user=owner)
    root = django_user_model.objects.create_superuser("root", password="pw-root-123")
    admin = Client()
    admin.force_login(root)
    pages = [admin.get("/admin/knox/authtoken/")]
    pages += [admin.get(f"/admin/knox/authtoken/{row.pk}/change/")]
    assert [p.status_code for p in pages] == [200, 200]
    for page in pages:
        html = page.content.decode()
        assert "owner" in html
        # Neither the token nor the key prefix knox looks it up by (the digest, a
        # SHA-512 of the token, is the row's id and cannot be turned back into it).
        assert token not in html and row.token_key not in html
    assert admin.get("/admin/knox/authtoken/add/").status_code == 403


def test_the_command_prints_a_working_token_once(owner, capsys):
    call_command("token_create", "owner")
    token = capsys.readouterr().out.strip()
    assert client_with(token).get("/api/v1/workspaces/").status_code == 200


def test_the_browser_session_works_and_needs_csrf_for_writes(owner, demo_workspace):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(owner)
    assert browser.get("/api/v1/workspaces/").status_code == 200
    response = browser.post("/api/v1/sessions/", {"workspace": demo_workspace.pk, "query": "Docks?"},
                            format="json")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]


def test_too_many_requests_are_throttled(owner, monkeypatch):
    cache.clear()
    # DRF reads the rates into the throttle class at import: patch the class, not settings.
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/minute"})
    api = token_client(owner)
    codes = [api.get("/api/v1/workspaces/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    cache.clear()


def test_the_openapi_schema_describes_every_endpoint(client, owner):
    client.force_login(owner)
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == {
        "/api/v1/auth/token/", "/api/v1/auth/logout/", "/api/v1/auth/logoutall/",
        "/api/v1/workspaces/", "/api/v1/documents/", "/api/v1/documents/{id}/",
        "/api/v1/sessions/", "/api/v1/sessions/{id}/", "/api/v1/sessions/{id}/turns/",
        "/api/v1/sessions/{id}/events/", "/api/v1/sessions/{id}/ledger/", "/api/v1/sessions/{id}/export/",
        "/api/v1/sessions/{id}/turns/{index}/state/", "/api/v1/sessions/{id}/turns/{index}/cancel/",
    }
    create = schema["paths"]["/api/v1/sessions/"]["post"]
    assert "201" in create["responses"]
    upload = schema["paths"]["/api/v1/documents/"]["post"]["requestBody"]["content"]
    assert list(upload) == ["multipart/form-data"]
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])


def test_the_docs_page_loads_nothing_from_a_cdn(client, owner):
    client.force_login(owner)
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn" not in html.lower() and "https://" not in html and "http://" not in html


def test_the_schema_generates_without_warnings_and_validates(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert "/api/v1/sessions/{id}/export/" in (tmp_path / "schema.yaml").read_text()
