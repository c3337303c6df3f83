"""Document metadata from a manifest CSV (ingestion input, DESIGN.md §3).

A manifest is a CSV with a header row and the columns
``path,title,jurisdiction,jurisdiction_level,source_type,citation_label,last_updated``.
``path`` is relative to the manifest's folder, with ``/`` separators; ``last_updated`` is
an ISO date (``YYYY-MM-DD``) or empty. Files without a row get :func:`default_metadata`.
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from retrieval.models import JurisdictionLevel

REQUIRED_COLUMNS = ("path", "title", "jurisdiction", "jurisdiction_level")
OPTIONAL_COLUMNS = ("source_type", "citation_label", "last_updated")


class ManifestError(Exception):
    """The manifest cannot be used; the message names the file and line."""


@dataclass(frozen=True)
class DocumentMetadata:
    """What a Document records about its source besides the text.

    ``jurisdiction``: a code such as ``US``, ``US-OR``, ``US-OR-Rivergrove`` or
    ``private``; ``jurisdiction_level``: a :class:`retrieval.models.JurisdictionLevel`
    value; ``last_updated``: the date the text was last amended, if known.
    """

    title: str
    jurisdiction: str = "private"
    jurisdiction_level: str = JurisdictionLevel.PRIVATE
    source_type: str = "document"
    citation_label: str = ""
    last_updated: dt.date | None = None


def default_metadata(path: Path) -> DocumentMetadata:
    """Metadata for a file with no manifest row: the title is the file name's stem with
    ``_`` and ``-`` as spaces; jurisdiction and level ``private``; source type
    ``document``."""
    title = " ".join(Path(path).stem.replace("_", " ").replace("-", " ").split())
    return DocumentMetadata(title=title or Path(path).name)


def read_manifest(path: Path) -> dict[str, DocumentMetadata]:
    """Read the manifest at ``path``.

    Returns ``{relative posix path: DocumentMetadata}``, keys relative to the manifest's
    folder (``"state/us-or/ors_chapter_156.html"``). Raises :class:`ManifestError` for a
    missing or unreadable file, missing columns, and any row with an empty path or
    title, an unknown ``jurisdiction_level``, a date that is not ``YYYY-MM-DD``, or a
    path listed twice; the message names the line.
    """
    path = Path(path)
    try:
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read manifest ({exc.strerror or exc})") from None
    levels = set(JurisdictionLevel.values)
    entries: dict[str, DocumentMetadata] = {}
    with handle:
        reader = csv.DictReader(handle)
        columns = [c.strip() for c in (reader.fieldnames or [])]
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            raise ManifestError(f"{path}: missing column(s) {', '.join(missing)}")
        reader.fieldnames = columns
        try:
            for row in reader:
                line = reader.line_num
                values = {k: (v or "").strip() for k, v in row.items() if k is not None}
                if not any(values.values()):
                    continue
                key = normalise_manifest_path(values["path"])
                where = f"{path}, line {line}"
                if not key:
                    raise ManifestError(f"{where}: empty path")
                if not values["title"]:
                    raise ManifestError(f"{where}: empty title for {key}")
                level = values["jurisdiction_level"].lower()
                if level not in levels:
                    raise ManifestError(
                        f"{where}: unknown jurisdiction_level {values['jurisdiction_level']!r}"
                        f" (expected one of {', '.join(sorted(levels))})"
                    )
                last_updated = None
                if values.get("last_updated"):
                    try:
                        last_updated = dt.date.fromisoformat(values["last_updated"])
                    except ValueError:
                        raise ManifestError(
                            f"{where}: bad last_updated {values['last_updated']!r}"
                            " (expected YYYY-MM-DD)"
                        ) from None
                if key in entries:
                    raise ManifestError(f"{where}: {key} is listed twice")
                entries[key] = DocumentMetadata(
                    title=values["title"],
                    jurisdiction=values["jurisdiction"] or "private",
                    jurisdiction_level=level,
                    source_type=values.get("source_type", "") or "document",
                    citation_label=values.get("citation_label", ""),
                    last_updated=last_updated,
                )
        except (csv.Error, UnicodeDecodeError) as exc:
            raise ManifestError(f"{path}, line {reader.line_num}: {exc}") from None
    return entries


def normalise_manifest_path(value: str) -> str:
    """A manifest path as a clean relative posix path (``./a\\b.txt`` → ``a/b.txt``)."""
    value = value.strip().replace("\\", "/")
    if not value:
        return ""
    parts = [p for p in PurePosixPath(value).parts if p not in (".", "")]
    return "/".join(parts)
