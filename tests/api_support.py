"""Helpers shared by the API tests: token clients and sessions run through the API."""

from __future__ import annotations

from rest_framework.test import APIClient

from ciq.api.tokens import token_create

QUESTION = "When may a state apply for an exemption from the Fair Debt Collection Practices Act?"


def token_client(user) -> APIClient:
    """An API client that authenticates as ``user`` with a new token, as an integration does."""
    client = APIClient()
    _, token = token_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def session_run(api: APIClient, capture, workspace, **body) -> dict:
    """POST a session and let its run finish (the immediate task backend runs it when
    the request's transaction commits); returns the 201 body."""
    with capture(execute=True):
        response = api.post("/api/v1/sessions/", {"workspace": workspace.pk, "query": QUESTION, **body},
                            format="json")
    assert response.status_code == 201, response.content
    return response.json()
