from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "ciq.web"
    verbose_name = "Web workbench"
