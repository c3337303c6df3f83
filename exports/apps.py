from django.apps import AppConfig


class ExportsConfig(AppConfig):
    """Markdown, PDF, JSON and DOCX exports of research sessions, and their records."""

    name = "exports"
    verbose_name = "Exports"
