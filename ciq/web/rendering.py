"""Safe HTML for answers and highlighted chunk text.

Answers are Markdown written by the Writer from document text, so they are untrusted:
markdown-it renders them with raw HTML disabled (every ``<`` is escaped, dangerous link
schemes are refused), and citation markers become numbered links to the cited chunk.
A document can also prompt-inject a link or an image (issue 11): only links to CIQ's own
pages stay links; any other link, and every image, becomes plain text showing its URL,
so nothing in an answer takes the reader off-site with a click or loads from elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from django.urls import Resolver404, resolve, reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

from verification.citations import CITE_ID_RE, CITE_RE, citation_numbers

_markdown = MarkdownIt("commonmark", {"html": False})
# Private-use characters stand in for citations while Markdown renders: they cannot
# come from the Writer's markers and markdown-it passes them through unchanged.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER_RE = re.compile(f"{_OPEN}([0-9a-f,]+)(?::(\\d+))?{_CLOSE}")
# A root-relative URL as markdown-it leaves it (percent-encoded): no scheme, no host, and
# not "//" (another host to a browser); a "/\" arrives as "/%5C" and resolves to no page.
_OWN_URL_RE = re.compile(r"/(?!/)[A-Za-z0-9\-._~%!$&'()*+,;=:@/?#]*")


def answer_html(text: str, *, session_id: int,
                claims: Sequence[int | None] | None = None) -> SafeString:
    """``text`` (Markdown with ``[cite:ID]`` markers) as HTML; each marker becomes
    ``<sup class="cite">`` links ``[n]`` (numbers in order of first citation) to the
    session's chunk page. ``claims`` (optional) gives, per marker in order, the index of
    the ledger claim it belongs to (``web.citations.claim_per_marker``): its links carry
    it as ``data-claim`` for the citation card. A link to a page of CIQ stays a link;
    any other link becomes "text (URL)" and an image "alt (URL)", as plain text (no
    ``<img>``, nothing fetched)."""
    numbers = citation_numbers(text)
    text = text.replace(_OPEN, "").replace(_CLOSE, "")
    per_marker = iter(claims or ())

    def placeholder(m: re.Match) -> str:
        claim = next(per_marker, None)
        tail = "" if claim is None else f":{int(claim)}"
        return _OPEN + ",".join(i.lower() for i in CITE_ID_RE.findall(m.group(1))) + tail + _CLOSE

    marked = CITE_RE.sub(placeholder, text)
    env: dict = {}
    tokens = _markdown.parse(marked, env)
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = _links_as_text(token.children)
    html = _markdown.renderer.render(tokens, _markdown.options, env)

    def link(match: re.Match) -> str:
        links = []
        claim = f' data-claim="{match.group(2)}"' if match.group(2) else ""
        for chunk_id in match.group(1).split(","):
            url = reverse("chunk", args=[session_id, chunk_id])
            links.append(f'<a href="{url}" data-chunk="{chunk_id}"{claim} '
                         f'aria-label="Source {numbers[chunk_id]}">[{numbers[chunk_id]}]</a>')
        return '<sup class="cite">' + "".join(links) + "</sup>"

    return mark_safe(_PLACEHOLDER_RE.sub(link, html))  # noqa: S308 — escaped by markdown-it


def _own_page(href: str) -> bool:
    """Whether ``href`` (as markdown-it normalised it) is a path of one of CIQ's pages."""
    if not _OWN_URL_RE.fullmatch(href):
        return False
    try:
        resolve(urlsplit(href).path)
    except Resolver404:
        return False
    return True


def _links_as_text(children: list[Token]) -> list[Token]:
    """The inline tokens with every link not to a CIQ page unwrapped to its text followed
    by " (URL)" (an autolink, whose text is its URL, just its text) and every image
    replaced by its alt text and " (URL)": the renderer escapes both as text."""
    out: list[Token] = []
    links: list[str | None] = []  # per open link: the text to close it with, None if kept
    for child in children:
        if child.type == "link_open":
            href = child.attrGet("href") or ""
            if _own_page(href):
                links.append(None)
                out.append(child)
            else:
                links.append("" if child.markup == "autolink" else f" ({href})")
        elif child.type == "link_close":
            tail = links.pop() if links else None
            if tail is None:
                out.append(child)
            elif tail:
                out.append(_text(tail))
        elif child.type == "image":
            alt = _markdown.renderer.renderInlineAsText(child.children or [], _markdown.options, {})
            src = child.attrGet("src") or ""
            out.append(_text(f"{alt} ({src})" if alt else src))
        else:
            out.append(child)
    return out


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


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
