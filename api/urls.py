"""REST API v1 (Django REST framework)."""

urlpatterns: list = []
