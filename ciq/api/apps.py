from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "ciq.api"
    verbose_name = "REST API"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from ciq.api.tokens import tokens_revoke_on_password_change

        pre_save.connect(tokens_revoke_on_password_change, sender=get_user_model(),
                         dispatch_uid="ciq.api.tokens_revoke_on_password_change")
