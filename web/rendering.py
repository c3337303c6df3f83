"""Safe HTML for answers and highlighted chunk text.

Answers are Markdown written by the Writer from document text, so they are untrusted:
markdown-it renders them with raw HTML disabled (every ``<`` is escaped, dangerous link
schemes are refused), and citation markers become numbered links to the cited chunk.
"""

from __future__ import annotations

import re

from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

from verification.citations import CITE_ID_RE, CITE_RE, citation_numbers

_markdown = MarkdownIt("commonmark", {"html": False})
# Private-use characters stand in for citations while Markdown renders: they cannot
# come from the Writer's markers and markdown-it passes them through unchanged.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER_RE = re.compile(f"{_OPEN}([0-9a-f,]+){_CLOSE}")


def answer_html(text: str, *, session_id: int) -> SafeString:
    """``text`` (Markdown with ``[cite:ID]`` markers) as HTML; each marker becomes
    ``<sup class="cite">`` links ``[n]`` (numbers in order of first citation) to the
    session's chunk page."""
    numbers = citation_numbers(text)
    text = text.replace(_OPEN, "").replace(_CLOSE, "")
    marked = CITE_RE.sub(
        lambda m: _OPEN + ",".join(i.lower() for i in CITE_ID_RE.findall(m.group(1))) + _CLOSE,
        text,
    )
    html = _markdown.render(marked)

    def link(match: re.Match) -> str:
        links = []
        for chunk_id in match.group(1).split(","):
            url = reverse("chunk", args=[session_id, chunk_id])
            links.append(f'<a href="{url}" data-chunk="{chunk_id}" '
                         f'aria-label="Source {numbers[chunk_id]}">[{numbers[chunk_id]}]</a>')
        return '<sup class="cite">' + "".join(links) + "</sup>"

    return mark_safe(_PLACEHOLDER_RE.sub(link, html))  # noqa: S308 — escaped by markdown-it


def highlighted(text: str, snippets: list[str]) -> SafeString:
    """``text`` escaped, with every occurrence of each non-empty snippet wrapped in
    ``<mark>`` (whitespace-insensitive match; overlapping matches merged)."""
    spans: list[tuple[int, int]] = []
    for snippet in snippets:
        words = snippet.split()
        if not words:
            continue
        pattern = r"\s+".join(re.escape(w) for w in words)
        spans.extend(m.span() for m in re.finditer(pattern, text))
    spans.sort()
    out, pos = [], 0
    for start, end in spans:
        if end <= pos:
            continue
        start = max(start, pos)
        out.append(escape(text[pos:start]))
        out.append(f"<mark>{escape(text[start:end])}</mark>")
        pos = end
    out.append(escape(text[pos:]))
    return mark_safe("".join(out))  # noqa: S308 — every piece escaped above
