from django.apps import AppConfig


class CiqConfig(AppConfig):
    name = "ciq"
    verbose_name = "CIQ workspaces"

    def ready(self) -> None:
        from ciq import checks  # noqa: F401  (registers the system checks)
