"""Export records: one row per file exported from a session (DESIGN.md §3)."""

from django.conf import settings
from django.db import models

from sessions.models import ResearchSession


class ExportFormat(models.TextChoices):
    MARKDOWN = "md", "Markdown"
    PDF = "pdf", "PDF"
    JSON = "json", "JSON"
    DOCX = "docx", "Word (DOCX)"


class ExportRecord(models.Model):
    """An export of a session: who, when, which format, and the file's sha256 and size.

    ``log_seq`` and ``log_hash`` are the head of the session's event log that the export
    carries, so an exported file can later be matched against the stored log.
    """

    session = models.ForeignKey(ResearchSession, on_delete=models.CASCADE, related_name="exports")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    format = models.CharField(max_length=4, choices=ExportFormat.choices)
    sha256 = models.CharField(max_length=64, help_text="sha256 of the exported file, hex.")
    size_bytes = models.PositiveBigIntegerField()
    log_seq = models.PositiveIntegerField(null=True, blank=True)
    log_hash = models.CharField(max_length=64, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["session", "-created"])]

    def __str__(self) -> str:
        return f"{self.session_id} {self.format} {self.sha256[:12]}"
