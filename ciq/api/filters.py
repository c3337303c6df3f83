"""Query-string filters of the list endpoints (django-filter)."""

import django_filters

from ciq.selectors import workspace_list_for_user
from retrieval.models import Document, JurisdictionLevel, Lane
from sessions.models import Mode, ResearchSession, RunStatus, VerificationMode


def _workspaces(request):
    # Only the caller's workspaces are valid choices; any other id is "not a valid choice".
    return workspace_list_for_user(user=request.user)


class SessionFilter(django_filters.FilterSet):
    """``?status=&mode=&verification_mode=&workspace=&created_after=&created_before=``
    (dates as YYYY-MM-DD, both ends inclusive)."""

    status = django_filters.ChoiceFilter(choices=RunStatus.choices)
    mode = django_filters.ChoiceFilter(choices=Mode.choices)
    verification_mode = django_filters.ChoiceFilter(choices=VerificationMode.choices)
    workspace = django_filters.ModelChoiceFilter(queryset=_workspaces)
    created_after = django_filters.DateFilter(field_name="created", lookup_expr="date__gte")
    created_before = django_filters.DateFilter(field_name="created", lookup_expr="date__lte")

    class Meta:
        model = ResearchSession
        fields = ["status", "mode", "verification_mode", "workspace"]


class DocumentFilter(django_filters.FilterSet):
    """``?status=&workspace=&jurisdiction=&jurisdiction_level=&lane=&updated_after=&updated_before=``."""

    status = django_filters.ChoiceFilter(choices=Document.Status.choices)
    workspace = django_filters.ModelChoiceFilter(queryset=_workspaces)
    jurisdiction = django_filters.CharFilter()
    jurisdiction_level = django_filters.ChoiceFilter(choices=JurisdictionLevel.choices)
    lane = django_filters.ChoiceFilter(choices=Lane.choices)
    updated_after = django_filters.DateFilter(field_name="updated", lookup_expr="date__gte")
    updated_before = django_filters.DateFilter(field_name="updated", lookup_expr="date__lte")

    class Meta:
        model = Document
        fields = ["status", "workspace", "jurisdiction", "jurisdiction_level", "lane"]
