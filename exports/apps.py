from django.apps import AppConfig


class ExportsConfig(AppConfig):
    """Markdown, PDF, JSON and DOCX exports: renderers arrive with the exports issue."""

    name = "exports"
    verbose_name = "Exports"
