"""Workspaces (a firm or a matter) and who belongs to them (DESIGN.md §3).

Every row that holds firm data belongs to a workspace, directly or through its parent.
"""

from django.conf import settings
from django.db import models


class Workspace(models.Model):
    """A firm or a matter: the unit of data isolation."""

    name = models.CharField(max_length=200, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="workspaces"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in a workspace; what each role may do is in ``ciq.permissions``."""

    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        ADMIN = "admin", "Admin"
        MEMBER = "member", "Member"
        VIEWER = "viewer", "Viewer"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace"], name="unique_membership"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class AuditEvent(models.Model):
    """A change to a workspace that an auditor relies on: a document deleted, a member
    added or removed, a role changed (``sessions`` keeps the audit chain of the research
    itself). Names are copied so the record outlives the user, document or workspace."""

    class Action(models.TextChoices):
        DOCUMENT_DELETED = "document_deleted", "Document deleted"
        MEMBER_ADDED = "member_added", "Member added"
        ROLE_CHANGED = "role_changed", "Role changed"
        MEMBER_REMOVED = "member_removed", "Member removed"

    workspace = models.ForeignKey(Workspace, null=True, on_delete=models.SET_NULL,
                                  related_name="audit_events")
    workspace_name = models.CharField(max_length=200)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+")
    actor_name = models.CharField(max_length=150, blank=True)  # "" for an operator's command
    action = models.CharField(max_length=20, choices=Action.choices)
    target = models.CharField(max_length=300)  # the document's title or the member's username
    detail = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["workspace", "-created"])]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.target} ({self.workspace_name})"
