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
    """A user's role in a workspace."""

    class Role(models.TextChoices):
        MEMBER = "member", "Member"
        ADMIN = "admin", "Admin"

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
