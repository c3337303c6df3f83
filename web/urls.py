"""Web workbench pages (server-rendered)."""

urlpatterns: list = []
