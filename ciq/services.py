"""Workspace and membership writes, and the workspace audit trail (``AuditEvent``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction

from ciq.models import AuditEvent, Membership, Workspace
from ciq.permissions import Action, permission_require, role_of


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
def workspace_owner_make(*, workspace: Workspace, creator: AbstractBaseUser) -> Membership:
    """Make ``creator``, who has just created ``workspace`` (in the admin, with the
    add-workspace permission), its owner, recorded as ``member_added`` by ``creator``:
    a staff user who is no superuser sees only their own workspaces, and a workspace
    nobody owns would vanish from their admin the moment they created it. Raises
    ``PermissionDenied`` if ``workspace`` already has members (it is not new)."""
    if Membership.objects.filter(workspace=workspace).exists():
        raise PermissionDenied("Only a new workspace is given to its creator.")
    membership = Membership.objects.create(user=creator, workspace=workspace,
                                           role=Membership.Role.OWNER)
    audit_record(workspace=workspace, actor=creator, action=AuditEvent.Action.MEMBER_ADDED,
                 target=creator.get_username(), role=Membership.Role.OWNER)
    return membership


def audit_record(*, workspace: Workspace, actor: AbstractBaseUser | None, action: str, target: str,
                 **detail) -> AuditEvent:
    """Append an :class:`AuditEvent` (``actor`` None: an operator's command)."""
    return AuditEvent.objects.create(
        workspace=workspace, workspace_name=workspace.name, actor=actor,
        actor_name=actor.get_username() if actor is not None else "", action=action,
        target=target[:300], detail=detail,
    )


def _may_manage(actor: AbstractBaseUser | None, workspace: Workspace, *roles: str | None) -> None:
    """Raise ``PermissionDenied`` unless ``actor`` may manage members, and, when a role
    involved (old or new) is owner, is an owner."""
    permission_require(user=actor, workspace=workspace, action=Action.MANAGE_MEMBERS)
    if actor is not None and not actor.is_superuser and Membership.Role.OWNER in roles \
            and role_of(user=actor, workspace=workspace) != Membership.Role.OWNER:
        raise PermissionDenied("Only an owner can make or change an owner.")


@transaction.atomic
def membership_add(*, user: AbstractBaseUser, workspace: Workspace,
                   role: str = Membership.Role.MEMBER, actor: AbstractBaseUser | None = None) -> Membership:
    """Make ``user`` a member of ``workspace`` with ``role`` (idempotent; updates the role)
    and record it (``member_added`` or ``role_changed``). ``actor``: who does it (None: an
    operator's command). Raises ``PermissionDenied`` when ``actor`` may not manage members
    (admins and owners may; only an owner may make or change an owner)."""
    before = role_of(user=user, workspace=workspace)
    _may_manage(actor, workspace, before, role)
    membership, _ = Membership.objects.update_or_create(
        user=user, workspace=workspace, defaults={"role": role}
    )
    if before is None:
        audit_record(workspace=workspace, actor=actor, action=AuditEvent.Action.MEMBER_ADDED,
                     target=user.get_username(), role=role)
    elif before != role:
        audit_record(workspace=workspace, actor=actor, action=AuditEvent.Action.ROLE_CHANGED,
                     target=user.get_username(), before=before, after=role)
    return membership


@transaction.atomic
def membership_remove(*, membership: Membership, actor: AbstractBaseUser | None = None) -> None:
    """Remove a member and record it (``member_removed``); the same rules as
    :func:`membership_add`. Open sockets of the removed user close on their next check
    (``web.consumers``)."""
    _may_manage(actor, membership.workspace, membership.role)
    audit_record(workspace=membership.workspace, actor=actor, action=AuditEvent.Action.MEMBER_REMOVED,
                 target=membership.user.get_username(), role=membership.role)
    membership.delete()
