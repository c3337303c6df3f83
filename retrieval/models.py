"""Documents and their chunks (DESIGN.md §3).

The lexical index (``retrieval.fts``: one FTS5 table per workspace on SQLite, a tsvector
table with per-workspace term counts on PostgreSQL) is written by
``retrieval.services`` when chunks are made or replaced, and by ``retrieval.signals`` when
documents or workspaces are deleted or retitled on any other path.
"""

from collections.abc import Sequence

from django.db import models

from ciq.models import Workspace


class JurisdictionLevel(models.TextChoices):
    FEDERAL = "federal", "Federal"
    STATE = "state", "State"
    COUNTY = "county", "County"
    MUNICIPAL = "municipal", "Municipal"
    PRIVATE = "private", "Private"


class Lane(models.TextChoices):
    """Retrieval lane (DESIGN.md §1): LOCAL holds firm, town, municipal and county
    documents; STATE holds state and federal authority."""

    LOCAL = "local", "Local"
    STATE = "state", "State"


LEVEL_LANE = {
    JurisdictionLevel.FEDERAL: Lane.STATE,
    JurisdictionLevel.STATE: Lane.STATE,
    JurisdictionLevel.COUNTY: Lane.LOCAL,
    JurisdictionLevel.MUNICIPAL: Lane.LOCAL,
    JurisdictionLevel.PRIVATE: Lane.LOCAL,
}


class Document(models.Model):
    """One source file loaded into a workspace."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="documents")
    title = models.CharField(max_length=500)
    file = models.FileField(upload_to="documents/%Y/%m/", blank=True)
    source_path = models.CharField(
        max_length=1000, blank=True, help_text="Where the file was loaded from (ingest key)."
    )
    sha256 = models.CharField(max_length=64)  # looked up with its workspace: Meta.indexes
    mime = models.CharField(max_length=100, blank=True)
    size_bytes = models.PositiveBigIntegerField(default=0)
    page_count = models.PositiveIntegerField(null=True, blank=True)
    jurisdiction = models.CharField(max_length=100, default="private", db_index=True)
    jurisdiction_level = models.CharField(
        max_length=10, choices=JurisdictionLevel.choices, default=JurisdictionLevel.PRIVATE
    )
    lane = models.CharField(max_length=5, choices=Lane.choices, default=Lane.LOCAL)
    source_type = models.CharField(max_length=50, blank=True)
    citation_label = models.CharField(max_length=300, blank=True)
    last_updated = models.DateField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title"]
        indexes = [
            models.Index(fields=["workspace", "source_path"]),
            # Ingest looks a file's bytes up in its workspace: without this, SQLite walked
            # every document of the workspace for each file (0.5 s of 1,720 files).
            models.Index(fields=["workspace", "sha256"]),
        ]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs):
        # The lane is derived from the level (DESIGN.md §1), never set on its own.
        self.lane = LEVEL_LANE[JurisdictionLevel(self.jurisdiction_level)]
        super().save(*args, **kwargs)


class Chunk(models.Model):
    """A passage of a document: the unit of retrieval and citation.

    ``chunk_id`` is 12 lowercase hex characters derived from the document's sha256 and
    the chunk's character offsets, so it is stable across re-ingests of the same file.
    ``jurisdiction`` and ``lane`` are copied from the document for filtering.
    ``heading_path`` (a list of strings, outermost first) feeds the pinpoint citation
    (:meth:`pinpoint_heading`): an empty path, as on chunks ingested before it existed,
    falls back to ``heading`` alone. ``sections`` says which section each part of a chunk
    that packs several sits in (:func:`section_path_at`).
    """

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    chunk_id = models.CharField(max_length=12, db_index=True)
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    char_start = models.PositiveIntegerField()
    char_end = models.PositiveIntegerField()
    page_start = models.PositiveIntegerField(null=True, blank=True)
    page_end = models.PositiveIntegerField(null=True, blank=True)
    heading = models.CharField(max_length=500, blank=True)
    heading_path = models.JSONField(
        default=list, blank=True,
        help_text="The enclosing headings, outermost first, ending with the heading "
                  "(retrieval.chunking); [] for chunks ingested before issue 13.",
    )
    sections = models.JSONField(
        null=True, blank=True, default=None,
        help_text="Where each section the chunk holds begins: [[offset, [heading, …]], …] "
                  "(offset in characters from the chunk's start); [] when the chunk lies in "
                  "one section; null for chunks ingested before sections were stored.",
    )
    token_count = models.PositiveIntegerField(default=0)
    jurisdiction = models.CharField(max_length=100, db_index=True)
    lane = models.CharField(max_length=5, choices=Lane.choices)

    class Meta:
        ordering = ["document", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["document", "chunk_id"], name="unique_chunk_id"),
            models.UniqueConstraint(fields=["document", "ordinal"], name="unique_chunk_ordinal"),
        ]

    def __str__(self) -> str:
        return f"{self.chunk_id} ({self.document_id}#{self.ordinal})"

    @property
    def pages(self) -> str:
        """Human page reference (:func:`page_label`)."""
        return page_label(self.page_start, self.page_end)

    @property
    def pinpoint_heading(self) -> str | list[str]:
        """What :func:`retrieval.pinpoint.pinpoint_label` takes as ``heading``: the
        heading path when stored, else the one-line heading."""
        return heading_for_pinpoint(self.heading, self.heading_path)


def heading_for_pinpoint(heading: str | None, path: list[str] | tuple[str, ...] | None) -> str | list[str]:
    """The heading path (a list, outermost first) when there is one, else ``heading``
    ("" for ``None``): chunks ingested before heading paths keep today's citation."""
    return list(path) if path else (heading or "")


def section_path_at(sections: Sequence | None, path: Sequence[str] | None,
                    offset: int) -> list[str]:
    """The heading path in force at character ``offset`` of a chunk's text (0-based, from
    the chunk's start): the last of ``sections`` (``Chunk.sections``: ``[offset, path]``
    pairs in text order) that begins at or before it, else the chunk's own ``path``
    (``Chunk.heading_path``). Returns a list, outermost heading first."""
    current = list(path or ())
    for start, section_path in sections or ():
        if start > offset:
            break
        current = list(section_path)
    return current


def page_label(start: int | None, end: int | None) -> str:
    """Human page reference: "p. 3", "pp. 3–4", or "" for a source without page numbers."""
    if not start:
        return ""
    return f"p. {start}" if end in (None, start) else f"pp. {start}–{end}"


class ChunkVector(models.Model):
    """A chunk's embedding under one model (DESIGN.md §5: in-database vectors).

    ``vector`` holds ``dims`` float32 values, little-endian, L2-normalised (so a dot
    product is the cosine). ``model`` is the embedder's name (``minilm``,
    ``openai:text-embedding-3-large``): a chunk may hold one vector per model, and a
    search only ever compares vectors of the model that embedded the question.
    ``workspace`` is copied from the document so a search reads one workspace's rows
    without a join.
    """

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="vectors")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=100)
    dims = models.PositiveIntegerField()
    vector = models.BinaryField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chunk", "model"], name="unique_chunk_vector_model"),
        ]
        indexes = [models.Index(fields=["workspace", "model"])]

    def __str__(self) -> str:
        return f"{self.model} vector of chunk {self.chunk_id}"
