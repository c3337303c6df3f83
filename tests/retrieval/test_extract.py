"""Text extraction on the real sample files and on broken inputs."""

from pathlib import Path

import pytest

from retrieval.extract import ExtractionError, extract_text

RIVERGROVE = Path("municipal/us-or-rivergrove")
MINUTES_PDF = RIVERGROVE / "minutes/2018-08-13-Minutes.pdf"
ORS_156 = Path("state/us-or/ors_chapter_156.html")
CFR_1006 = Path("federal/us-cfr-12/12cfr1006_fair_debt_collection_practices_act.txt")
DOCKS_MD = RIVERGROVE / "ordinances/2017-Ord-88-2017-Docks.md"


def build_pdf(objects: list[str], trailer_extra: str = "") -> bytes:
    """A minimal PDF file from object bodies (object numbers 1..n), with a correct xref."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R {trailer_extra}>>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


ONE_EMPTY_PAGE = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
]


def test_markdown_is_kept_as_written_with_its_headings(samples_dir):
    extracted = extract_text(samples_dir / DOCKS_MD)

    assert extracted.mime == "text/markdown"
    assert extracted.page_starts is None
    assert extracted.text == (samples_dir / DOCKS_MD).read_text(encoding="utf-8")
    assert any(line.startswith("#") for line in extracted.text.splitlines())


def test_plain_text_keeps_section_signs_and_lines(samples_dir):
    extracted = extract_text(samples_dir / CFR_1006)

    assert extracted.mime == "text/plain"
    assert "\n§ 1006.2 Application.\n" in extracted.text
    assert "\r" not in extracted.text


def test_windows_1252_html_decodes_section_signs_and_curly_quotes(samples_dir):
    extracted = extract_text(samples_dir / ORS_156)

    assert extracted.mime == "text/html"
    assert "[Amended by 1973 c.836 §329]" in extracted.text
    assert "156.080 Defendant’s plea; refusal to plead." in extracted.text
    assert "\ufffd" not in extracted.text and "â€" not in extracted.text


def test_html_keeps_blocks_as_lines_and_drops_styles_and_soft_wraps(samples_dir):
    text = extract_text(samples_dir / ORS_156).text
    lines = text.splitlines()

    assert "font-family" not in text and "<p" not in text
    # The source wraps this paragraph over several lines; it comes out as one line.
    assert any(
        line.startswith("156.010 Criminal procedure statutes govern generally. A criminal action")
        and line.endswith("[Amended by 1973 c.836 §329]")
        for line in lines
    )
    assert "  " not in text


def test_html_markup_becomes_headings_lines_and_cells(tmp_path):
    page = tmp_path / "page.html"
    page.write_bytes(
        b"<html><head><title>T</title><script>x()</script></head><body>"
        b"<h2>Section 1. <b>Fees</b></h2><!-- note --><div><p>A fee of\n  $20 is due.</p>"
        b"<p>Line one<br>line two</p></div><table><tr><th>Item</th><td>Fee</td></tr></table>"
        b"<h3></h3><ul><li>first</li><li>second</li></ul></body></html>")
    assert extract_text(page).text == (
        "## Section 1. Fees\n\nA fee of $20 is due.\n\nLine one\nline two\n\nItem Fee\n\n"
        "first\n\nsecond")


def soup_walk_text(raw: bytes) -> str:
    """The text of an HTML page as ``retrieval.extract`` read it before it followed the
    parser's events: a walk of the tree ``BeautifulSoup(raw, "lxml")`` builds. The
    reference the event reader must match."""
    import re

    from bs4 import BeautifulSoup, Comment, Declaration, Doctype, NavigableString, ProcessingInstruction

    from retrieval.extract import _HTML_BLOCKS, _HTML_DROP, _HTML_HEADINGS, _INLINE_WS_RE, _clean

    skipped = (Comment, Doctype, Declaration, ProcessingInstruction)
    levels = {name: level for level, name in enumerate(_HTML_HEADINGS, start=1)}
    parts: list[str] = []
    stack: list = [BeautifulSoup(raw, "lxml")]
    while stack:
        node = stack.pop()
        if isinstance(node, NavigableString):
            if not isinstance(node, skipped):
                parts.append(_INLINE_WS_RE.sub(" ", node.replace("\n", " ").replace("\r", " ")))
            continue
        if isinstance(node, str):
            parts.append(node)
            continue
        if node.name in _HTML_DROP:
            continue
        if node.name == "br":
            parts.append("\n")
            continue
        if node.name in levels:
            parts.append("\n\n" + "#" * levels[node.name] + " ")
            stack.append("\n\n")
        elif node.name in _HTML_BLOCKS:
            parts.append("\n\n")
            stack.append("\n\n")
        elif node.name in ("td", "th"):
            stack.append(" ")
        stack.extend(reversed(node.contents))
    lines = [_INLINE_WS_RE.sub(" ", line).strip() for line in _clean("".join(parts)).split("\n")]
    lines = ["" if re.fullmatch(r"#{1,6}", line) else line for line in lines]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")


# Pages the parser has to repair, or whose text hides among things that are not text.
AWKWARD_PAGES = [
    b"<p>one<p>two<div>three</p>four</div>five",  # unclosed, and an end tag out of order
    b"<h2>Title<h3>Inner</h2>after</h3><h1></h1><h4> </h4>",  # headings in headings, empty
    b"<table><tr><td>a<td>b<th>c</table>d</td>e",  # cells closed by the table, stray end tag
    b"<script>var s = '</p><p>not text';</script><style>p{}</style>seen<noscript>no</noscript>",
    b"<br>line<br/>two</br>three<br><b>bold</b>",  # br never holds text, even when written so
    b"<!DOCTYPE html><!-- a comment --><?php echo 1 ?><![CDATA[x < y]]>&amp;&nbsp;&#167;&bogus;",
    b"<pre>  keep\n\n  spaces </pre><textarea>\n\t</textarea> a \r\n b \x0c c \x0b d",
    b"<svg><text>drawn</text><p>inside svg</p></svg><template><p>later</p></template>kept",
    b"<html><head><title>T</title></head><body>in<head>body</head>x</body></html>trailing",
    b"<ul><li>first<li>second<ol><li>nested</ul>out</ol>",
    "<meta charset='windows-1252'><p>§ 156.080 Defendant’s plea — “quoted”</p>".encode("cp1252"),
    "\ufeff<p>BOM first §</p>".encode("utf-8"),
    "<p>sixteen bits § ‘x’</p>".encode("utf-16"),
    b"<p>not utf-8 \xa7 \x93quoted\x94 \x81\x9d</p>",
    b"<o:p>word</o:p><font face=x>old</font><center>middle</center><xmp><p>raw</xmp>",
    b"",
]


@pytest.mark.parametrize("page", AWKWARD_PAGES)
def test_html_text_is_what_a_walk_of_the_soup_tree_gives(page):
    from retrieval.extract import _html_text

    assert _html_text(page) == soup_walk_text(page)


def test_the_sample_html_pages_read_as_the_soup_tree_walk_reads_them(samples_dir):
    from retrieval.extract import _html_text

    pages = sorted(samples_dir.rglob("*.htm*"))
    assert pages
    for page in pages:
        assert _html_text(page.read_bytes()) == soup_walk_text(page.read_bytes()), page


def test_html_is_read_from_the_parsers_events_without_building_a_tree(samples_dir, monkeypatch):
    # Building Beautiful Soup's tree was three quarters of reading an ORS chapter (the ten
    # HTML files of the corpus: 0.66 s, now 0.14 s); the text comes from lxml's events.
    import bs4

    def build(*args, **kwargs):
        raise AssertionError("a Beautiful Soup tree was built")

    monkeypatch.setattr(bs4.BeautifulSoup, "__init__", build)
    text = extract_text(samples_dir / ORS_156).text
    assert "156.080 Defendant’s plea; refusal to plead." in text


def test_pdf_gives_text_per_page_with_page_offsets(samples_dir):
    extracted = extract_text(samples_dir / MINUTES_PDF)

    assert extracted.mime == "application/pdf"
    assert extracted.page_count == 9
    assert extracted.page_starts[0] == 0
    assert extracted.page_starts == sorted(set(extracted.page_starts))
    assert extracted.text.startswith("1\nRivergrove City Council Meeting Minutes")
    assert "The meeting was called to order at Lloyd Minor Park" in extracted.text
    # Page 2 starts with its page number, right after the blank line that joins pages.
    page_two = extracted.page_starts[1]
    assert extracted.text[page_two - 2 : page_two] == "\n\n"
    assert extracted.text[page_two:].startswith("2\n")


def test_docx_turns_heading_styles_into_markdown_and_keeps_table_cells(samples_dir, tmp_path):
    import docx

    body = (samples_dir / CFR_1006).read_text(encoding="utf-8").split("\n")[7]
    document = docx.Document()
    document.add_heading("§ 1006.1 Purpose and definitions.", level=1)
    document.add_paragraph(body)
    document.add_heading("Fees", level=2)
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Permit", "Fee"
    table.cell(1, 0).text, table.cell(1, 1).text = "Dock", "$250"
    path = tmp_path / "regulation.docx"
    document.save(path)

    extracted = extract_text(path)

    lines = extracted.text.splitlines()
    assert "# § 1006.1 Purpose and definitions." in lines
    assert "## Fees" in lines
    assert body in lines
    assert "Permit | Fee" in lines and "Dock | $250" in lines
    assert extracted.page_starts is None


def test_utf8_bom_is_dropped_and_legacy_text_falls_back_to_windows_1252(tmp_path):
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffSection 1. Scope – “quoted”.\r\n".encode("utf-8"))
    legacy = tmp_path / "legacy.txt"
    legacy.write_bytes("Section 2. Fees \u2014 \u00a7 5 \u201cpaid\u201d.\n".encode("cp1252"))

    assert extract_text(bom).text == "Section 1. Scope – “quoted”.\n"
    assert extract_text(legacy).text == "Section 2. Fees — § 5 “paid”.\n"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.txt", b"", "empty file"),
        ("blank.md", b"  \n\t\n", "only whitespace"),
        ("notes.xyz", b"hello", "unsupported file type .xyz"),
        ("broken.pdf", b"%PDF-1.4\nthis is not really a pdf", "corrupt or unreadable PDF"),
        ("broken.docx", b"PK\x03\x04 not a zip archive", "corrupt or unreadable DOCX"),
        (
            "markup.html",
            b"<html><head><style>p{}</style></head><body> </body></html>",
            "only whitespace",
        ),
    ],
)
def test_broken_inputs_raise_a_clear_reason(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_bytes(content)

    with pytest.raises(ExtractionError) as caught:
        extract_text(path)

    assert reason in caught.value.reason


def test_a_missing_file_is_reported_as_not_found(tmp_path):
    with pytest.raises(ExtractionError, match="file not found"):
        extract_text(tmp_path / "gone.txt")


def test_a_file_over_the_size_limit_is_refused(tmp_path, settings):
    settings.INGEST_MAX_FILE_BYTES = 10
    path = tmp_path / "big.txt"
    path.write_text("x" * 11)

    with pytest.raises(ExtractionError, match="too large.*INGEST_MAX_FILE_BYTES"):
        extract_text(path)


def test_an_encrypted_pdf_asks_for_a_password(tmp_path):
    # A standard security handler (RC4, revision 2) whose /U entry matches no password,
    # so the empty user password fails as it would on a password-protected file.
    encrypt = (
        "<< /Filter /Standard /V 1 /R 2 /O <" + "ab" * 32 + "> /U <" + "cd" * 32 + "> /P -44 >>"
    )
    path = tmp_path / "locked.pdf"
    path.write_bytes(
        build_pdf(
            ONE_EMPTY_PAGE + [encrypt],
            "/Encrypt 4 0 R /ID [<" + "01" * 16 + "> <" + "01" * 16 + ">] ",
        )
    )

    with pytest.raises(ExtractionError, match=r"encrypted PDF \(password required\)"):
        extract_text(path)


def test_an_image_only_pdf_suggests_ocr(tmp_path):
    import pypdfium2 as pdfium

    path = tmp_path / "scan.pdf"
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(612, 792).close()
    pdf.save(str(path))
    pdf.close()

    with pytest.raises(ExtractionError, match=r"no extractable text — scanned PDF\? run OCR"):
        extract_text(path)
