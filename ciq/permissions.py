"""What each role may do in a workspace (issue 11 "roles inside a workspace").

One table, :data:`ROLE_ACTIONS`, read by the services that change a workspace (so the
pages, the API and the websocket enforce the same rules) and by the pages that hide
what a role may not do:

=========  ====  ===  ======  ===============  ==============
role       read  ask  upload  delete_document  manage_members
=========  ====  ===  ======  ===============  ==============
viewer     yes
member     yes   yes  yes
admin      yes   yes  yes     yes              yes (not owners)
owner      yes   yes  yes     yes              yes
=========  ====  ===  ======  ===============  ==============

Reading is membership itself: a user who is no member gets 404 from the selectors,
never 403, so "not yours" and "does not exist" look the same. A member who lacks the
role gets ``PermissionDenied`` (HTTP 403) with a message naming the role.
"""

from __future__ import annotations

from enum import StrEnum

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied

from ciq.models import Membership, Workspace


class Action(StrEnum):
    """Something a member may do in a workspace."""

    READ = "read"
    ASK = "ask"  # start a session or a follow-up (web, API, websocket)
    UPLOAD = "upload"
    DELETE_DOCUMENT = "delete_document"
    MANAGE_MEMBERS = "manage_members"


Role = Membership.Role
ROLE_ACTIONS: dict[str, frozenset[Action]] = {
    Role.VIEWER: frozenset({Action.READ}),
    Role.MEMBER: frozenset({Action.READ, Action.ASK, Action.UPLOAD}),
    Role.ADMIN: frozenset(Action),
    Role.OWNER: frozenset(Action),
}
_VERBS = {Action.READ: "read it", Action.ASK: "ask questions", Action.UPLOAD: "upload documents",
          Action.DELETE_DOCUMENT: "delete documents", Action.MANAGE_MEMBERS: "change members"}


def role_of(*, user: AbstractBaseUser, workspace: Workspace) -> str | None:
    """The role of ``user`` in ``workspace`` (a :class:`Membership.Role` value), or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    return (Membership.objects.filter(user=user, workspace=workspace)
            .values_list("role", flat=True).first())


def role_allows(role: str | None, action: Action) -> bool:
    """Whether ``role`` may do ``action`` (no role: nothing)."""
    return action in ROLE_ACTIONS.get(role, frozenset())


def permission_require(*, user: AbstractBaseUser | None, workspace: Workspace, action: Action) -> None:
    """Raise ``PermissionDenied`` unless ``user`` may do ``action`` in ``workspace``.
    ``user`` None is an operator's command (``manage.py``), which may do anything, and
    so may a superuser (the server's operator, e.g. in the admin)."""
    if user is None or getattr(user, "is_superuser", False):
        return
    role = role_of(user=user, workspace=workspace)
    if not role_allows(role, action):
        raise PermissionDenied(
            f"Your role in “{workspace.name}” ({role or 'none'}) does not let you {_VERBS[action]}."
        )


def capabilities(*, user: AbstractBaseUser, workspace: Workspace) -> dict[str, bool]:
    """``{action value: allowed}`` for every :class:`Action`, plus ``"role"`` (templates)."""
    role = role_of(user=user, workspace=workspace)
    return {"role": role, **{action.value: role_allows(role, action) for action in Action}}
