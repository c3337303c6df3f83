"""Text extraction: one file in, plain text out (the first step of ingestion, DESIGN.md §2).

Supported formats: ``.txt``, ``.md`` (kept as written: its headings drive chunking),
``.html``/``.htm`` (block structure kept as lines, any declared or detected encoding),
``.pdf`` (text layer, page by page, with page offsets) and ``.docx`` (paragraphs with
heading styles as Markdown headings, then table cells).

Every problem with the file itself raises :class:`ExtractionError` with a reason a person
can act on ("encrypted PDF (password required)", "no extractable text — scanned PDF?
run OCR first", ...). The caller decides what to do with it; ingestion records it on a
failed Document row.

Hostile files are refused while reading, before a parser expands them (issue 11,
finding 4): a DOCX's zip directory is checked first (entry count, total unpacked size,
size of each XML part; ``zipfile`` never unpacks more than an entry's declared size, so a
lying header ends as a CRC error) and its paragraphs are counted by a streaming parse
before python-docx builds its tree; a PDF's page count is checked before any page is
read; the extracted text has a length limit. Time and memory are bounded outside the
parsers, by the subprocess of :mod:`retrieval.sandbox`. The limits are settings
(``INGEST_MAX_*``), read from the environment.
"""

from __future__ import annotations

import functools
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

MIME_BY_SUFFIX = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
SUPPORTED_SUFFIXES = frozenset(MIME_BY_SUFFIX)

# Control characters other than tab and newline: they break databases (NUL in
# PostgreSQL) and tokenizers, and never carry meaning in our formats. PDFium marks
# soft hyphens with \x02 and unmapped glyphs with \ufffe/\uffff. They become spaces,
# not nothing, so character offsets stay those of the source text.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
_INLINE_WS_RE = re.compile(r"[^\S\n]+")
_BLANK_RUN_RE = re.compile(r"\n{3,}")
_BARE_HEADING_RE = re.compile(r"#{1,6}")

_HTML_DROP = ("script", "style", "noscript", "template", "head", "svg", "iframe", "object")
_HTML_BLOCKS = (
    "p", "div", "section", "article", "header", "footer", "main", "aside", "nav",
    "blockquote", "pre", "address", "figure", "figcaption", "ul", "ol", "li", "dl", "dt",
    "dd", "table", "thead", "tbody", "tfoot", "tr", "caption", "hr", "form", "fieldset",
    "center", "body", "html",
)
_HTML_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


class ExtractionError(Exception):
    """The file cannot be turned into text; ``reason`` says why, for a person to read."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class ExtractedText:
    """The text of one file.

    ``text``: the whole text, lines separated by ``\\n``. ``mime``: the media type of the
    source file. ``page_starts``: for paged formats (PDF), the character offset in
    ``text`` where each page begins (page 1 at index 0, so ``page_starts[0] == 0``);
    ``None`` for formats without pages.
    """

    text: str
    mime: str
    page_starts: list[int] | None = None

    @property
    def page_count(self) -> int | None:
        """Number of pages, or ``None`` for formats without pages."""
        return None if self.page_starts is None else len(self.page_starts)


@functools.cache
def parsers_import() -> None:
    """Import the HTML, PDF and Word parsers now (they are imported lazily, on the first
    file of their type), so that processes forked afterwards share them instead of each
    importing its own (``retrieval.sandbox``)."""
    import bs4.dammit  # noqa: F401
    import docx  # noqa: F401
    import lxml.etree  # noqa: F401
    import pypdfium2  # noqa: F401


def extract_text(path: Path) -> ExtractedText:
    """Extract the text of the file at ``path``.

    The format is chosen by the file's extension (case-insensitive). Raises
    :class:`ExtractionError` for: a missing file, an unsupported extension, an empty
    file, a file larger than ``settings.INGEST_MAX_FILE_BYTES``, an encrypted or corrupt
    PDF, a PDF without a text layer, a corrupt DOCX, and any file whose text is only
    whitespace.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        shown = suffix or "(no extension)"
        raise ExtractionError(f"unsupported file type {shown} (supported: {supported})")
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ExtractionError("file not found") from None
    except OSError as exc:
        raise ExtractionError(f"cannot read file ({exc.strerror or exc})") from None
    if size == 0:
        raise ExtractionError("empty file (0 bytes)")
    too_large = oversize_reason(size)
    if too_large:
        raise ExtractionError(too_large)

    mime = MIME_BY_SUFFIX[suffix]
    page_starts: list[int] | None = None
    if suffix == ".pdf":
        text, page_starts = _pdf_text(path)
    elif suffix == ".docx":
        text = _docx_text(path)
    elif suffix in (".html", ".htm"):
        text = _html_text(path.read_bytes())
    else:
        text = _clean(decode_text_bytes(path.read_bytes()))

    if len(text) > settings.INGEST_MAX_TEXT_CHARS:
        raise ExtractionError(
            f"too much text: {len(text):,} characters over the "
            f"{settings.INGEST_MAX_TEXT_CHARS:,} limit (INGEST_MAX_TEXT_CHARS)")
    if not text.strip():
        if suffix == ".pdf":
            raise ExtractionError("no extractable text — scanned PDF? run OCR first")
        raise ExtractionError("no text: the file holds only whitespace or markup")
    return ExtractedText(text=text, mime=mime, page_starts=page_starts)


def oversize_reason(size: int) -> str:
    """The reason a file of ``size`` bytes is refused, or "" when it is within
    ``settings.INGEST_MAX_FILE_BYTES``."""
    limit = settings.INGEST_MAX_FILE_BYTES
    if size <= limit:
        return ""
    shown, allowed = sizes_shown(size, limit)
    return f"file too large: {shown} over the {allowed} limit (INGEST_MAX_FILE_BYTES)"


def decode_text_bytes(raw: bytes) -> str:
    """Decode a plain-text file: UTF-8 (with or without BOM), UTF-16 with a BOM, else
    windows-1252 (which maps nearly every byte, so legacy files still read)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8", errors="replace")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def _clean(text: str) -> str:
    """Unify line endings as Python's universal newlines do and blank out control
    characters (one space each); otherwise leave text as is. For text files the result
    has the offsets of the file as ``open(path, encoding="utf-8").read()`` sees it
    (less a BOM), so gold spans and chunk offsets line up."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL_RE.sub(" ", text)


_MB = 1024 * 1024


def sizes_shown(size: int, limit: int) -> tuple[str, str]:
    """``size`` and ``limit`` (bytes) as people read them, different whenever the numbers
    differ: "51.0 MB" and "50.0 MB" (1 MB = 1,048,576 bytes), two decimals when one
    would round both alike, exact bytes ("52,428,801 bytes") when two would too. The one
    formatter of every "over the limit" message (file, DOCX unpacked and XML part sizes,
    workspace quota)."""
    for digits in (1, 2):
        shown = (f"{size / _MB:,.{digits}f} MB", f"{limit / _MB:,.{digits}f} MB")
        if shown[0] != shown[1] or size == limit:
            return shown
    return f"{size:,} bytes", f"{limit:,} bytes"


# --- HTML ---------------------------------------------------------------------------------


def _html_text(raw: bytes) -> str:
    """Visible text of an HTML page, one block element per paragraph.

    Encoding: Beautiful Soup's detector reads a BOM, the ``<meta charset>`` declaration
    and then guesses (``EncodingDetector``), so windows-1252 pages such as the ORS
    chapters keep their "§" and curly quotes. Whitespace inside a block (the source's
    soft line wraps, ``&nbsp;`` runs) becomes one space; block boundaries become blank
    lines; ``<h1>``–``<h6>`` become Markdown heading lines so the chunker sees them.

    The page is read as lxml parses it, event by event (:class:`_HtmlText`), with the
    parser and the encodings Beautiful Soup's ``lxml`` builder uses, tried in the same
    order: the same text as walking the tree ``BeautifulSoup(raw, "lxml")`` builds, in
    a fifth of the time (building that tree was three quarters of reading an ORS chapter;
    tests/retrieval/test_extract.py compares the two).
    """
    from bs4.dammit import EncodingDetector
    from bs4.exceptions import ParserRejectedMarkup
    from lxml import etree

    detector = EncodingDetector(raw, is_html=True)
    rejections = []
    for encoding in detector.encodings:
        target = _HtmlText()
        try:  # as bs4.builder.LXMLTreeBuilder.feed, which tries the next encoding on these
            parser = etree.HTMLParser(target=target, recover=True, huge_tree=False, encoding=encoding)
            parser.feed(detector.markup)
            parser.close()
        except (UnicodeDecodeError, LookupError, etree.ParserError) as exc:
            rejections.append(str(exc))
            continue
        return target.text()
    raise ParserRejectedMarkup(
        "The markup you provided was rejected by the parser. Trying a different parser or a "
        "different encoding may help.\n\nOriginal exception(s) from parser:\n "
        + "\n ".join(rejections))


_HTML_LEVELS = {name: level for level, name in enumerate(_HTML_HEADINGS, start=1)}
_HTML_SKIP = frozenset(_HTML_DROP) | {"br"}  # elements whose content is not read


class _HtmlText:
    """An lxml parser target that writes a page's text as its elements open and close.

    It keeps the open elements as Beautiful Soup does (an end tag closes the latest open
    element of its name and every element opened after it; one of no open element is
    ignored; the end of the page closes the rest), so the text and the block markers
    come out in the order of a walk of Beautiful Soup's tree: a heading or block element
    writes a break when it opens and when it closes, a table cell a space when it
    closes, ``<br>`` a line break; what ``_HTML_DROP`` elements hold is not read, nor
    are comments, the doctype and processing instructions."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        # (element name, what it writes when it closes; None: its content is not read)
        self.open: list[tuple[str, str | None]] = []
        self.skipping = 0  # open elements whose content is not read

    def start(self, tag, attrib, nsmap=None) -> None:
        if self.skipping:
            self.open.append((tag, ""))
            return
        if tag in _HTML_SKIP:
            if tag == "br":
                self.parts.append("\n")
            self.skipping += 1
            self.open.append((tag, None))
            return
        level = _HTML_LEVELS.get(tag)
        if level is not None:
            self.parts.append("\n\n" + "#" * level + " ")
            self.open.append((tag, "\n\n"))
        elif tag in _HTML_BLOCKS:
            self.parts.append("\n\n")
            self.open.append((tag, "\n\n"))
        else:
            self.open.append((tag, " " if tag in ("td", "th") else ""))

    def end(self, tag) -> None:
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index][0] == tag:
                self._close(len(self.open) - index)
                return

    def data(self, data) -> None:
        if not self.skipping:  # its spaces are collapsed with the line's (text())
            self.parts.append(data.replace("\n", " ").replace("\r", " "))

    def comment(self, text) -> None:
        pass

    def doctype(self, name, pubid, system) -> None:
        pass

    def pi(self, target, data=None) -> None:
        pass

    def close(self) -> None:
        self._close(len(self.open))

    def _close(self, count: int) -> None:
        for _ in range(count):
            _, closing = self.open.pop()
            if closing is None:
                self.skipping -= 1
            elif closing and not self.skipping:
                self.parts.append(closing)

    def text(self) -> str:
        """The document's text as read so far: whitespace collapsed within lines, bare
        heading markers dropped, at most one blank line between blocks."""
        text = _clean("".join(self.parts))
        lines = [_INLINE_WS_RE.sub(" ", line).strip() for line in text.split("\n")]
        # A heading marker whose element held no text leaves a bare "#": drop it.
        lines = ["" if _BARE_HEADING_RE.fullmatch(line) else line for line in lines]
        return _BLANK_RUN_RE.sub("\n\n", "\n".join(lines)).strip("\n")


# --- PDF ----------------------------------------------------------------------------------


def _pdf_text(path: Path) -> tuple[str, list[int]]:
    """Text layer of a PDF, pages joined by a blank line, with each page's start offset."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            raise ExtractionError("encrypted PDF (password required)") from None
        if code == pdfium_c.FPDF_ERR_SECURITY:
            raise ExtractionError("PDF uses an unsupported security handler") from None
        raise ExtractionError("corrupt or unreadable PDF") from None
    try:
        if len(pdf) == 0:
            raise ExtractionError("corrupt or unreadable PDF (no pages)")
        if len(pdf) > settings.INGEST_MAX_PDF_PAGES:
            raise ExtractionError(
                f"too many pages: {len(pdf):,} over the {settings.INGEST_MAX_PDF_PAGES:,} "
                "limit (INGEST_MAX_PDF_PAGES)")
        parts: list[str] = []
        page_starts: list[int] = []
        offset = 0
        for index in range(len(pdf)):
            page = pdf[index]
            try:
                textpage = page.get_textpage()
                try:
                    page_text = _clean(textpage.get_text_range()).strip("\n")
                finally:
                    textpage.close()
            except pdfium.PdfiumError:
                raise ExtractionError(f"corrupt PDF: page {index + 1} cannot be read") from None
            finally:
                page.close()
            if parts:
                parts.append("\n\n")
                offset += 2
            page_starts.append(offset)
            parts.append(page_text)
            offset += len(page_text)
        return "".join(parts), page_starts
    finally:
        pdf.close()


# --- DOCX ---------------------------------------------------------------------------------


def _docx_text(path: Path) -> str:
    """Paragraphs in document order (headings as ``#`` lines) and table rows as
    ``cell | cell`` lines, blocks separated by blank lines."""
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from lxml.etree import XMLSyntaxError

    docx_check(path)
    try:
        document = docx.Document(str(path))
        blocks: list[str] = []
        for item in document.iter_inner_content():
            if isinstance(item, Table):
                blocks.extend(_docx_table_rows(item))
            else:
                line = _docx_paragraph(item)
                if line:
                    blocks.append(line)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, XMLSyntaxError, ValueError):
        raise ExtractionError("corrupt or unreadable DOCX") from None
    return _clean("\n\n".join(blocks))


_W_P = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}p"
_DOCX_BODY = "word/document.xml"


def docx_check(path: Path) -> None:
    """Refuse a DOCX that would expand beyond the limits, reading only its zip directory
    and streaming its body once. Raises :class:`ExtractionError` for more than
    ``INGEST_MAX_ZIP_ENTRIES`` entries, more than ``INGEST_MAX_UNPACKED_BYTES`` unpacked
    in all (a zip bomb), an XML part over ``INGEST_MAX_XML_BYTES``, more than
    ``INGEST_MAX_DOCX_PARAGRAPHS`` paragraphs (table cells included), or a corrupt zip.
    """
    from lxml import etree

    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
            if len(entries) > settings.INGEST_MAX_ZIP_ENTRIES:
                raise ExtractionError(
                    f"DOCX has too many parts: {len(entries):,} zip entries over the "
                    f"{settings.INGEST_MAX_ZIP_ENTRIES:,} limit (INGEST_MAX_ZIP_ENTRIES)")
            unpacked = sum(e.file_size for e in entries)
            if unpacked > settings.INGEST_MAX_UNPACKED_BYTES:
                shown, allowed = sizes_shown(unpacked, settings.INGEST_MAX_UNPACKED_BYTES)
                raise ExtractionError(
                    f"DOCX unpacks to {shown}, over the {allowed} limit "
                    "(INGEST_MAX_UNPACKED_BYTES): a zip bomb?")
            for entry in entries:
                if (entry.filename.endswith((".xml", ".rels"))
                        and entry.file_size > settings.INGEST_MAX_XML_BYTES):
                    shown, allowed = sizes_shown(entry.file_size, settings.INGEST_MAX_XML_BYTES)
                    raise ExtractionError(
                        f"DOCX part {entry.filename[:80]} is {shown}, over the {allowed} limit "
                        "(INGEST_MAX_XML_BYTES)")
            limit = settings.INGEST_MAX_DOCX_PARAGRAPHS
            count = 0
            with archive.open(_DOCX_BODY) as body:
                # No DTDs, no entities, no huge text nodes: only counting.
                for _event, element in etree.iterparse(
                        body, events=("end",), tag=_W_P, resolve_entities=False,
                        no_network=True, huge_tree=False, load_dtd=False):
                    count += 1
                    if count > limit:
                        raise ExtractionError(
                            f"DOCX has too many paragraphs: over the {limit:,} limit "
                            "(INGEST_MAX_DOCX_PARAGRAPHS)")
                    element.clear()
    except (zipfile.BadZipFile, KeyError, etree.XMLSyntaxError, EOFError, OSError,
            NotImplementedError, RuntimeError):
        raise ExtractionError("corrupt or unreadable DOCX") from None


def _docx_paragraph(paragraph) -> str:
    text = _INLINE_WS_RE.sub(" ", paragraph.text).strip()
    if not text:
        return ""
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    match = re.match(r"Heading (\d)", style)
    if match:
        return "#" * min(int(match.group(1)), 6) + " " + text
    if style == "Title":
        return "# " + text
    return text


def _docx_table_rows(table) -> list[str]:
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            value = _INLINE_WS_RE.sub(" ", cell.text).strip()
            # Merged cells repeat across the span; keep one copy.
            if value and (not cells or cells[-1] != value):
                cells.append(value)
        if cells:
            rows.append(" | ".join(cells))
    return rows
