"""Secrets kept in files outside the repository (the Django secret key, the audit HMAC
key): read, or created exactly once. No Django import: settings use it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def key_file_read_or_create(path: Path, make: Callable[[], str]) -> str:
    """The key stored in ``path`` (surrounding whitespace removed); if the file is missing
    or empty, ``make()`` is written to it with mode 0600 and returned. Two processes that
    start together get the same key (``O_EXCL``: the second reads the first's file).
    Raises ``OSError`` when the folder cannot be created or the file cannot be read."""
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    key = make()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key
