"""``{{ chunk.text|chunk_html }}``: a document's Markdown text as sanitised HTML
(``ciq.web.document_text.chunk_html``)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from ciq.web.document_text import chunk_html as _chunk_html

register = template.Library()


@register.filter
def chunk_html(text: str) -> SafeString:
    """Chunk text (Markdown) as sanitised HTML, for templates
    (``ciq.web.document_text.chunk_html``, without highlights)."""
    return _chunk_html(text)
