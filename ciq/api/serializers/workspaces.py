"""Workspace output."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ciq.models import Membership, Workspace
from ciq.selectors import workspace_list_for_user


class WorkspaceSerializer(serializers.ModelSerializer):
    """A workspace the caller belongs to, with the caller's ``role`` in it."""

    role = serializers.ChoiceField(choices=Membership.Role.choices, read_only=True)

    class Meta:
        model = Workspace
        fields = ["id", "name", "role", "created"]
        read_only_fields = fields


@extend_schema_field(OpenApiTypes.INT)
class UserWorkspaceField(serializers.PrimaryKeyRelatedField):
    """A workspace id among the caller's workspaces. Any other id, existing or not, gets
    the same "does not exist" message, so the field reveals nothing about others'."""

    def get_queryset(self):
        return workspace_list_for_user(user=self.context["request"].user)
