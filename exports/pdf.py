"""PDF export: a Django template (autoescaped) rendered by WeasyPrint, with the
citations as real footnotes at the page bottom (CSS ``float: footnote``).

The renderer fetches nothing but this app's own stylesheet: ``StaticOnlyFetcher``
refuses every other URL (http, https, data, other files), so text that smuggles in an
``<img src=…>`` or a ``url(…)`` can neither reach the network nor read local files —
and it is escaped into plain text anyway.
"""

from __future__ import annotations

import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.template.loader import render_to_string
from weasyprint import HTML
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetcherResponse

from exports.document import SessionDocument

STATIC_DIR = (Path(__file__).resolve().parent / "static" / "exports").resolve()
MIME = {".css": "text/css"}  # what the export template links to


class FetchRefused(ValueError):
    """The PDF renderer asked for a URL outside the exports' static files."""


class StaticOnlyFetcher(URLFetcher):
    """A WeasyPrint URL fetcher that serves files under ``exports/static/exports/``
    (``file:`` URLs) and raises ``FetchRefused`` for anything else."""

    def fetch(self, url: str, headers=None) -> URLFetcherResponse:
        parts = urlsplit(url)
        path = Path(unquote(parts.path)).resolve() if parts.scheme == "file" else None
        if path is None or parts.netloc not in ("", "localhost") or not path.is_file() \
                or not path.is_relative_to(STATIC_DIR) or path.suffix not in MIME:
            raise FetchRefused(f"PDF export fetches only its own static files; refused {url[:200]}")
        return URLFetcherResponse(url, body=path.read_bytes(), headers={"Content-Type": MIME[path.suffix]})


_local = threading.local()


def font_config() -> FontConfiguration:
    """This thread's WeasyPrint font configuration, built once (fontconfig loads the
    system fonts on each ``FontConfiguration()``; the stylesheet has no ``@font-face``,
    so nothing is ever added to it). One per thread: a Pango font map is not
    thread-safe."""
    config = getattr(_local, "font_config", None)
    if config is None:
        config = _local.font_config = FontConfiguration()
    return config


def render_pdf(doc: SessionDocument) -> bytes:
    """The session as a PDF (A4, footnotes at the page bottom), as bytes.

    Speed (README "Exports"): the ledger and metadata tables have fixed column widths
    (``table-layout: fixed``), so WeasyPrint never measures every cell's min/max content
    width, and the font configuration is reused across exports."""
    html = render_to_string("exports/session.html", {"doc": doc})
    return HTML(
        string=html, base_url=STATIC_DIR.as_uri() + "/", url_fetcher=StaticOnlyFetcher()
    ).write_pdf(font_config=font_config())
