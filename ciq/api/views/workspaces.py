"""``GET /api/v1/workspaces/``."""

from django.db.models import F
from rest_framework import generics

from ciq.api.serializers.workspaces import WorkspaceSerializer
from ciq.models import Workspace
from ciq.selectors import workspace_list_for_user


class WorkspaceListView(generics.ListAPIView):
    """The caller's workspaces by name, each with the caller's role."""

    queryset = Workspace.objects.none()  # the model, for the schema; rows: get_queryset
    serializer_class = WorkspaceSerializer
    filter_backends: list = []

    def get_queryset(self):
        # The filter on membership__user makes this join the caller's own membership row.
        return workspace_list_for_user(user=self.request.user).annotate(role=F("membership__role"))
