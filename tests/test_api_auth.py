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


def test_a_token_is_issued_for_a_username_and_password(owner):
    response = APIClient().post("/api/v1/auth/token/", {"username": "owner", "password": "pw-owner-123"})
    assert response.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/v1/workspaces/").status_code == 200
    wrong = APIClient().post("/api/v1/auth/token/", {"username": "owner", "password": "nope"})
    assert wrong.status_code == 400 and "non_field_errors" in wrong.json()


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


def test_the_openapi_schema_describes_every_endpoint(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == {
        "/api/v1/auth/token/", "/api/v1/workspaces/", "/api/v1/documents/", "/api/v1/documents/{id}/",
        "/api/v1/sessions/", "/api/v1/sessions/{id}/", "/api/v1/sessions/{id}/turns/",
        "/api/v1/sessions/{id}/events/", "/api/v1/sessions/{id}/ledger/", "/api/v1/sessions/{id}/export/",
    }
    create = schema["paths"]["/api/v1/sessions/"]["post"]
    assert "201" in create["responses"]
    upload = schema["paths"]["/api/v1/documents/"]["post"]["requestBody"]["content"]
    assert list(upload) == ["multipart/form-data"]
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])


def test_the_docs_page_loads_nothing_from_a_cdn(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn" not in html.lower() and "https://" not in html and "http://" not in html


def test_the_schema_generates_without_warnings_and_validates(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert "/api/v1/sessions/{id}/export/" in (tmp_path / "schema.yaml").read_text()
