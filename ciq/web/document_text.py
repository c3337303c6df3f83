"""Document text (a chunk, a stored source snapshot) as safe HTML, from its Markdown.

Ingestion keeps a document's structure as Markdown (``## Section``, ``**d.**``, lists,
tables), so the documents page, the chunk page and the citation side panel render it
rather than show the raw marks (issue 14). Document text is untrusted (an upload may
carry ``<script>`` or a ``javascript:`` link), so:

- markdown-it renders with raw HTML disabled: every ``<`` of the text is escaped, and
  its link check refuses ``javascript:``, ``vbscript:``, ``file:`` and ``data:`` URLs;
- only absolute ``http(s)`` links stay links, marked ``rel="nofollow noopener
  noreferrer"``; any other link becomes its text followed by " (URL)";
- an image becomes its alt text and " (URL)": nothing is fetched from elsewhere;
- the Judge's evidence snippets are wrapped in ``<mark>`` inside text nodes only (the
  mark is split at every element boundary, so the markup stays balanced).

No sanitiser is needed on top: nothing reaches the output that markdown-it did not
escape, except the fixed ``<mark>`` tags added here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

# Legal text is never code: an indented line (a plain-text file's "        A.  Scope")
# stays a paragraph, not a code block; a line break in the text stays one (``breaks``),
# as plain-text and PDF documents lay out lists and schedules line by line.
_markdown = (MarkdownIt("commonmark", {"html": False, "breaks": True})
             .enable(["table", "strikethrough"]).disable("code"))
# Private-use characters mark where an evidence snippet starts and ends while the text
# renders: markdown-it passes them through as text; they are removed from the input first.
_START, _END = "\ue010", "\ue011"
_SENTINELS_RE = re.compile(f"[{_START}{_END}]")
_WEB_LINK_RE = re.compile(r"https?://", re.IGNORECASE)


def chunk_html(text: str, *, snippets: Sequence[str] = ()) -> SafeString:
    """``text`` (Markdown) as sanitised HTML in a ``<div class="doc-text">`` (``<p>``,
    ``<h3>``–``<h6>``, ``<ul>``, ``<table>`` …), with every occurrence of each
    non-empty snippet of ``snippets`` in ``<mark>`` (matched whitespace-insensitively
    against the raw text, as ``ciq.web.rendering.highlighted`` does; overlapping
    matches merged). Empty text gives an empty string."""
    text = _SENTINELS_RE.sub("", text or "")
    if not text.strip():
        return mark_safe("")
    text = _with_sentinels(text, snippets)
    env: dict = {}
    tokens = _markdown.parse(text, env)
    inside = False
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children, inside = _inline(token.children, inside)
        elif token.type in ("heading_open", "heading_close"):
            # A chunk sits under the page's own h1/h2: its headings start at h3.
            token.tag = f"h{min(6, int(token.tag[1]) + 2)}"
        elif token.type in ("code_block", "fence"):
            token.content, inside = _code_marks(token.content, inside)
    html = _markdown.renderer.render(tokens, _markdown.options, env)
    body = _SENTINELS_RE.sub("", html)
    return mark_safe(f'<div class="doc-text">{body}</div>')  # noqa: S308 — escaped by markdown-it and _marked


def _with_sentinels(text: str, snippets: Sequence[str]) -> str:
    """``text`` with ``_START``/``_END`` around each (merged) snippet occurrence."""
    spans: list[tuple[int, int]] = []
    for snippet in snippets:
        words = (snippet or "").split()
        if words:
            pattern = r"\s+".join(re.escape(w) for w in words)
            spans.extend(m.span() for m in re.finditer(pattern, text))
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out += [text[pos:start], _START, text[start:end], _END]
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _marked(content: str, inside: bool) -> tuple[str, bool]:
    """``content`` escaped, its snippet spans (by sentinel, ``inside`` one at the start)
    in ``<mark>``; returns the HTML and whether a span is still open at the end."""
    out = []
    for piece in re.split(f"([{_START}{_END}])", content):
        if piece == _START:
            inside = True
        elif piece == _END:
            inside = False
        elif piece:
            out.append(f"<mark>{escape(piece)}</mark>" if inside else escape(piece))
    return "".join(out), inside


def _code_marks(content: str, inside: bool) -> tuple[str, bool]:
    """Code keeps no marks (the renderer escapes it): drop the sentinels, track state."""
    for char in content:
        if char == _START:
            inside = True
        elif char == _END:
            inside = False
    return _SENTINELS_RE.sub("", content), inside


def _html(content: str) -> Token:
    token = Token("html_inline", "", 0)
    token.content = content
    return token


def _inline(children: list[Token], inside: bool) -> tuple[list[Token], bool]:
    """The inline tokens with text marked, links not to the web as text, images as text."""
    out: list[Token] = []
    links: list[str | None] = []  # per open link: the text closing it, None if kept
    for child in children:
        if child.type == "text":
            html, inside = _marked(child.content, inside)
            out.append(_html(html))
        elif child.type == "code_inline":
            child.content, inside = _code_marks(child.content, inside)
            out.append(child)
        elif child.type == "link_open":
            href = _SENTINELS_RE.sub("", child.attrGet("href") or "")
            if _WEB_LINK_RE.match(href):
                child.attrSet("href", href)
                child.attrSet("rel", "nofollow noopener noreferrer")
                links.append(None)
                out.append(child)
            else:
                links.append("" if child.markup == "autolink" or not href else f" ({href})")
        elif child.type == "link_close":
            tail = links.pop() if links else None
            if tail is None:
                out.append(child)
            elif tail:
                out.append(_html(escape(tail)))
        elif child.type == "image":
            alt = _SENTINELS_RE.sub("", _markdown.renderer.renderInlineAsText(
                child.children or [], _markdown.options, {}))
            src = _SENTINELS_RE.sub("", child.attrGet("src") or "")
            out.append(_html(escape(f"{alt} ({src})" if alt else src)))
        else:
            out.append(child)
    return out, inside
