"""Workspace reads, always scoped to the user (STYLE.md habit 3)."""

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.http import Http404

from ciq.models import Workspace


def workspace_list_for_user(*, user: AbstractBaseUser) -> QuerySet[Workspace]:
    """The workspaces ``user`` is a member of, by name."""
    return Workspace.objects.filter(membership__user=user).order_by("name")


def workspace_get_for_user(*, user: AbstractBaseUser, workspace_id: int) -> Workspace:
    """The workspace ``workspace_id`` if ``user`` is a member; ``Http404`` otherwise
    ("not yours" and "does not exist" look the same)."""
    try:
        return workspace_list_for_user(user=user).get(pk=workspace_id)
    except Workspace.DoesNotExist as exc:
        raise Http404("No such workspace.") from exc


def workspace_get_by_name(*, name: str) -> Workspace:
    """The workspace called ``name`` (command-line use). Raises ``Workspace.DoesNotExist``."""
    return Workspace.objects.get(name=name)
