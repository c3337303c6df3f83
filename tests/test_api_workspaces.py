"""``GET /api/v1/workspaces/``: the caller's workspaces only, with the caller's role."""

import pytest

from ciq.services import membership_add
from tests.api_support import token_client

pytestmark = pytest.mark.django_db


def test_a_member_sees_their_workspaces_with_their_role(owner, member, other_workspace,
                                                         django_assert_max_num_queries):
    membership_add(user=member, workspace=other_workspace)
    api = token_client(member)
    with django_assert_max_num_queries(3):  # token + user, count, page
        body = api.get("/api/v1/workspaces/").json()
    assert [(w["name"], w["role"]) for w in body["results"]] == [("Demo", "member"), ("Other firm", "member")]
    owned = token_client(owner).get("/api/v1/workspaces/").json()["results"]
    assert [(w["name"], w["role"]) for w in owned] == [("Demo", "owner")]


def test_an_outsider_sees_only_their_own_firm(outsider):
    body = token_client(outsider).get("/api/v1/workspaces/").json()
    assert [w["name"] for w in body["results"]] == ["Other firm"]
