"""Template helpers of the web workbench: the workspace switcher and number formats."""

from __future__ import annotations

from django import template

from ciq.selectors import workspace_list_for_user
from ciq.text import markdown_plain

register = template.Library()


@register.inclusion_tag("web/_workspace_switcher.html", takes_context=True)
def workspace_switcher(context) -> dict:
    """The switcher: the user's workspaces (only those they are a member of) and the
    current one (``workspace`` in the page's context, if any)."""
    request = context["request"]
    current = context.get("workspace")
    return {
        "workspaces": list(workspace_list_for_user(user=request.user)),
        "current_id": current.pk if current else None,
        "csrf_token": context.get("csrf_token"),
    }


@register.filter
def percent(value) -> str:
    """A share in [0, 1] as "87%"; "–" for ``None``."""
    if value is None or value == "":
        return "–"
    return f"{float(value):.0%}"


@register.filter
def number(value, digits: int = 2) -> str:
    """A float with ``digits`` decimals; "–" for ``None``."""
    if value is None or value == "":
        return "–"
    return f"{float(value):.{int(digits)}f}"


@register.filter
def get(mapping, key):
    """``mapping[key]`` or ``None`` (dicts with non-identifier keys in templates)."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def plain(value) -> str:
    """Document text on one line without Markdown debris (``ciq.text.markdown_plain``):
    evidence snippets in the ledgers. Autoescaped like any string."""
    return markdown_plain(str(value or ""))


@register.filter
def label(value) -> str:
    """A choice value in words for the page: "very_low" → "Very low", "not_found" →
    "Not found"."""
    return str(value or "").replace("_", " ").capitalize()
