"""JSON export: the ``ciq.session/1`` document (``exports.data.session_data``),
UTF-8, indented; its shape is ``exports/schemas/ciq.session-1.schema.json``."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "ciq.session-1.schema.json"


def render_json(data: dict) -> bytes:
    """``data`` as UTF-8 JSON (non-ASCII kept as is, two-space indent)."""
    return json.dumps(data, ensure_ascii=False, indent=2).encode("utf-8")


@cache
def session_schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``ciq.session/1``."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
