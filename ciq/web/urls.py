"""Web workbench pages (server-rendered). Names are not namespaced: the auth settings
refer to "login" and "home"."""

from django.contrib.auth import views as auth_views
from django.urls import path

from ciq.web.views import ask, chunks, documents, exports, sessions, workspaces

urlpatterns = [
    path("", workspaces.home, name="home"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("workspaces/switch/", workspaces.workspace_switch, name="workspace-switch"),
    path("w/<int:workspace_id>/ask/", ask.ask, name="ask"),
    path("w/<int:workspace_id>/documents/", documents.document_list_view, name="documents"),
    path("w/<int:workspace_id>/documents/status/", documents.document_status,
         name="document-status"),
    path("w/<int:workspace_id>/sessions/", sessions.session_list, name="sessions"),
    path("documents/<int:document_id>/", documents.document_detail, name="document"),
    path("documents/<int:document_id>/delete/", documents.document_delete_view,
         name="document-delete"),
    path("sessions/<int:session_id>/", sessions.session_detail, name="session"),
    path("sessions/<int:session_id>/ask/", sessions.session_followup, name="followup"),
    path("sessions/<int:session_id>/turns/<int:index>/", sessions.turn_fragment, name="turn"),
    path("sessions/<int:session_id>/turns/<int:index>/state/", sessions.turn_state, name="turn-state"),
    path("sessions/<int:session_id>/turns/<int:index>/cancel/", sessions.turn_cancel_view,
         name="turn-cancel"),
    path("sessions/<int:session_id>/turns/<int:index>/retry/", sessions.turn_retry_view,
         name="turn-retry"),
    path("sessions/<int:session_id>/chunks/<str:chunk_id>/", chunks.chunk_detail, name="chunk"),
    path("sessions/<int:session_id>/chunks/<str:chunk_id>/panel/", chunks.chunk_panel,
         name="chunk-panel"),
    path("sessions/<int:session_id>/export/<str:fmt>/", exports.session_export_view,
         name="session-export"),
]
