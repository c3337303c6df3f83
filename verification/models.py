"""Claims and the evidence ledger (DESIGN.md §3)."""

from django.db import models


class Outcome(models.TextChoices):
    """Whether a turn answered its question (DESIGN.md §1, "answerability"; issue 9):
    decided from the answer coverage by ``verification.relevance.outcome_for``."""

    ANSWERED = "answered", "Answered"
    PARTIAL = "partial", "Partially answered"
    NOT_ANSWERED = "not_answered", "Not answered"


class ClaimType(models.TextChoices):
    FACTUAL = "factual", "Factual"
    NUMERIC = "numeric", "Numeric"
    TEMPORAL = "temporal", "Temporal"
    COMPARATIVE = "comparative", "Comparative"
    CAUSAL = "causal", "Causal"
    POLICY = "policy", "Policy"
    OPINION = "opinion", "Opinion"


class Verdict(models.TextChoices):
    SUPPORTED = "supported", "Supported"
    WEAK = "weak", "Weak"
    NOT_FOUND = "not_found", "Not found"
    CONTRADICTED = "contradicted", "Contradicted"


class ConfidenceLevel(models.TextChoices):
    """Claim confidence levels (DESIGN.md §1): high ≥ 0.85, medium ≥ 0.70, low ≥ 0.50."""

    HIGH = "high", "High"
    MEDIUM = "medium", "Medium"
    LOW = "low", "Low"
    VERY_LOW = "very_low", "Very low"


class Claim(models.Model):
    """An atomic claim the Skeptic extracted from a turn's text (or one revision of it)."""

    turn = models.ForeignKey("ciq_sessions.Turn", on_delete=models.CASCADE, related_name="claims")
    revision = models.ForeignKey(
        "ciq_sessions.Revision", on_delete=models.CASCADE, null=True, blank=True,
        related_name="claims",
    )
    index = models.PositiveIntegerField()
    text = models.TextField()
    type = models.CharField(max_length=12, choices=ClaimType.choices, default=ClaimType.FACTUAL)
    span_start = models.PositiveIntegerField()
    span_end = models.PositiveIntegerField()
    cited_chunk_ids = models.JSONField(default=list)
    substantive_words = models.JSONField(
        default=list, help_text='[[word, importance], ...] with importance in {1.0, 0.95, 0.8, 0.7}'
    )

    class Meta:
        ordering = ["turn", "revision", "index"]

    def __str__(self) -> str:
        return self.text[:80]


class LedgerEntry(models.Model):
    """The Judge's verdict on one claim, with its evidence (the evidence ledger)."""

    claim = models.OneToOneField(Claim, on_delete=models.CASCADE, related_name="ledger")
    verdict = models.CharField(max_length=12, choices=Verdict.choices)
    score = models.FloatField(help_text="Judge score in [0, 1].")
    confidence = models.FloatField(help_text="Claim confidence in [0, 1] (DESIGN.md §1).")
    level = models.CharField(max_length=8, choices=ConfidenceLevel.choices)
    evidence = models.ForeignKey(
        "retrieval.Chunk", on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="The chunk holding the best evidence (null once its document is replaced).",
    )
    evidence_chunk_id = models.CharField(max_length=12, blank=True)
    snippet = models.TextField(blank=True)
    reasoning = models.TextField(blank=True)
    supporting_chunk_ids = models.JSONField(default=list)
    contradicting_chunk_ids = models.JSONField(default=list)
    verification_ms = models.FloatField(default=0.0)
    relevance = models.FloatField(
        default=1.0, help_text="Relevance to the question's facets in [0, 1] (issue 9)."
    )
    addressed = models.JSONField(
        default=list, blank=True, help_text="Indices of the question's facets the claim addresses."
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.verdict} ({self.score:.2f})"
