from django.apps import AppConfig


class CiqConfig(AppConfig):
    name = "ciq"
    verbose_name = "CIQ workspaces"
