"""Jurisdiction codes and their chains (DESIGN.md §1, §3).

Codes are hyphen-separated from the top down: ``US`` (federal), ``US-OR`` (a state),
``US-OR-Rivergrove`` (a town in it), ``TX-48201`` (a county by FIPS code). ``private``
marks a firm's own documents and has no chain.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

PRIVATE = "private"


def jurisdiction_ancestors(code: str) -> list[str]:
    """The codes above ``code``, nearest first, ending with the federal code.

    ``"US-OR-Rivergrove"`` → ``["US-OR", "US"]``; ``"TX-houston"`` → ``["TX", "US"]``;
    ``"US"`` → ``[]``; ``"private"`` → ``[]``.
    """
    if code == PRIVATE:
        return []
    parts = code.split("-")
    chain = ["-".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
    federal = settings.FEDERAL_JURISDICTION
    if code != federal and federal not in chain:
        chain.append(federal)
    return chain


def statewide_jurisdictions(targets: Iterable[str]) -> set[str]:
    """The targets plus every code above them: what the STATE lane may draw on."""
    codes: set[str] = set()
    for code in targets:
        codes.add(code)
        codes.update(jurisdiction_ancestors(code))
    return codes

