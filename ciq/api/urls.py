"""REST API v1 (Django REST framework) and its OpenAPI 3 schema and docs pages.

``/api/v1/…`` endpoints; ``/api/schema/`` (OpenAPI 3, YAML or ``?format=json``) and
``/api/docs/`` (Swagger UI from drf-spectacular-sidecar's static files, its init script
served as a file for the Content-Security-Policy; ReDoc is left out because its page
loads web fonts from Google). Both need a signed-in caller.
"""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from ciq.api.views.auth import TokenCreateView, TokenRevokeAllView, TokenRevokeView
from ciq.api.views.documents import DocumentDetailView, DocumentListView
from ciq.api.views.records import SessionEventsView, SessionExportView, SessionLedgerView
from ciq.api.views.sessions import (
    SessionDetailView,
    SessionListView,
    TurnCancelView,
    TurnCreateView,
    TurnStateView,
)
from ciq.api.views.workspaces import WorkspaceListView

app_name = "api"

v1 = [
    path("auth/token/", TokenCreateView.as_view(), name="token"),
    path("auth/logout/", TokenRevokeView.as_view(), name="token-revoke"),
    path("auth/logoutall/", TokenRevokeAllView.as_view(), name="token-revoke-all"),
    path("workspaces/", WorkspaceListView.as_view(), name="workspace-list"),
    path("documents/", DocumentListView.as_view(), name="document-list"),
    path("documents/<int:pk>/", DocumentDetailView.as_view(), name="document-detail"),
    path("sessions/", SessionListView.as_view(), name="session-list"),
    path("sessions/<int:pk>/", SessionDetailView.as_view(), name="session-detail"),
    path("sessions/<int:pk>/turns/", TurnCreateView.as_view(), name="session-turns"),
    path("sessions/<int:pk>/turns/<int:index>/state/", TurnStateView.as_view(), name="turn-state"),
    path("sessions/<int:pk>/turns/<int:index>/cancel/", TurnCancelView.as_view(), name="turn-cancel"),
    path("sessions/<int:pk>/events/", SessionEventsView.as_view(), name="session-events"),
    path("sessions/<int:pk>/ledger/", SessionLedgerView.as_view(), name="session-ledger"),
    path("sessions/<int:pk>/export/", SessionExportView.as_view(), name="session-export"),
]

urlpatterns = [
    path("v1/", include(v1)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
]
