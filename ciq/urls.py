"""Root URL configuration: the web workbench, the REST API and the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("ciq.api.urls")),
    path("", include("ciq.web.urls")),
]
