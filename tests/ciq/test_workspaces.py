"""Workspace access: members see their workspaces, outsiders get 404."""

import pytest
from django.http import Http404

from ciq.selectors import workspace_get_for_user, workspace_list_for_user
from ciq.services import workspace_get_or_create

pytestmark = pytest.mark.django_db


def test_a_member_sees_only_their_workspaces(member, outsider, demo_workspace, other_workspace):
    assert list(workspace_list_for_user(user=member)) == [demo_workspace]
    assert list(workspace_list_for_user(user=outsider)) == [other_workspace]


def test_an_outsider_gets_404_for_another_firms_workspace(outsider, demo_workspace):
    with pytest.raises(Http404):
        workspace_get_for_user(user=outsider, workspace_id=demo_workspace.pk)


def test_a_missing_workspace_looks_like_a_foreign_one(member):
    with pytest.raises(Http404):
        workspace_get_for_user(user=member, workspace_id=999_999)


def test_workspace_names_are_required_and_reused(db):
    assert workspace_get_or_create(name=" Demo ") == workspace_get_or_create(name="Demo")
    with pytest.raises(ValueError):
        workspace_get_or_create(name="  ")
