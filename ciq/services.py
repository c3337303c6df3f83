"""Workspace and membership writes."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from ciq.models import Membership, Workspace


@transaction.atomic
def workspace_get_or_create(*, name: str) -> Workspace:
    """Return the workspace called ``name``, creating it if absent.

    Raises ``ValueError`` for an empty name.
    """
    name = name.strip()
    if not name:
        raise ValueError("A workspace needs a name.")
    workspace, _ = Workspace.objects.get_or_create(name=name)
    return workspace


@transaction.atomic
def membership_add(*, user: AbstractBaseUser, workspace: Workspace,
                   role: str = Membership.Role.MEMBER) -> Membership:
    """Make ``user`` a member of ``workspace`` with ``role`` (idempotent; updates the role)."""
    membership, _ = Membership.objects.update_or_create(
        user=user, workspace=workspace, defaults={"role": role}
    )
    return membership
