"""Login throttling (django-axes): after 5 wrong passwords for one username from one
address, even the right password is refused on the web login, the admin login and the
API token endpoint (issue 11, item 3)."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

WRONG_TRIES = 6


@pytest.fixture
def staff(owner):
    owner.is_staff = True
    owner.save()
    return owner


def test_the_web_login_refuses_the_right_password_after_six_wrong_ones(owner):
    browser = Client()
    for _ in range(WRONG_TRIES):
        assert browser.post("/login/", {"username": "owner", "password": "wrong"}).status_code in (200, 429)
    response = browser.post("/login/", {"username": "owner", "password": "pw-owner-123"})
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in browser.session


def test_the_admin_login_refuses_the_right_password_after_six_wrong_ones(staff):
    browser = Client()
    for _ in range(WRONG_TRIES):
        browser.post("/admin/login/", {"username": "owner", "password": "wrong"})
    response = browser.post("/admin/login/", {"username": "owner", "password": "pw-owner-123"})
    assert response.status_code == 429
    assert "_auth_user_id" not in browser.session


def test_the_token_endpoint_refuses_the_right_password_after_six_wrong_ones(owner):
    api = APIClient()
    for _ in range(WRONG_TRIES):
        assert api.post("/api/v1/auth/token/", {"username": "owner", "password": "wrong"}).status_code in (
            400, 429)
    response = api.post("/api/v1/auth/token/", {"username": "owner", "password": "pw-owner-123"})
    assert response.status_code == 429
    assert "token" not in response.json() and "Too many failed logins" in response.json()["detail"]


def test_fewer_failures_than_the_limit_still_let_the_right_password_in(owner):
    browser = Client()
    for _ in range(4):
        browser.post("/login/", {"username": "owner", "password": "wrong"})
    assert browser.post("/login/", {"username": "owner", "password": "pw-owner-123"}).status_code == 302


def test_a_lockout_is_per_username_and_address(owner, member):
    for _ in range(WRONG_TRIES):
        Client().post("/login/", {"username": "owner", "password": "wrong"})
    # Another user from the same address, and the same user from another address.
    assert Client().post("/login/", {"username": "member", "password": "pw-member-123"}).status_code == 302
    other = Client(REMOTE_ADDR="10.0.0.9")
    assert other.post("/login/", {"username": "owner", "password": "pw-owner-123"}).status_code == 302
