"""Renderers on a document model built in the test (no database): the PDF's ledger
layout and font reuse, Word footnote references and column widths, Markdown heading
levels, and snippet text cleaned of Markdown debris in every format."""

import io
import re
import zipfile
from unittest import mock

import pytest
from django.template.loader import render_to_string
from docx import Document
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from markdown_it import MarkdownIt
from weasyprint import HTML
from weasyprint.formatting_structure import boxes

from exports import pdf
from exports.document import (
    Block,
    LedgerRow,
    Note,
    NoteRef,
    Run,
    SessionDocument,
    TurnPart,
    _Notes,
    answer_blocks,
    plain,
)
from exports.docx import render_docx
from exports.markdown import render_markdown
from exports.pdf import STATIC_DIR, StaticOnlyFetcher, render_pdf

NOTES = (
    Note(1, "c1", "Rivergrove Dock Ordinance", "Rivergrove Ord. § 7.2", "p. 3",
         "A dock requires a permit."),
    Note(2, "c2", "Harbour Rules", "HR § 2", "", "Moorings close at dusk."),
)
LONG_CLAIM = ("A café operating a floating dock on the Tualatin River must hold a café dock "
              "licence issued by the Mayor before opening, with no exceptions. ") * 2


def make_doc(*, blocks=None, claims=23) -> SessionDocument:
    """A one-turn session: the answer cites note 1, then note 2, then note 1 again."""
    one, two = NOTES
    blocks = blocks or (
        Block("paragraph", (Run("Docks need a permit."), NoteRef(one, True))),
        Block("paragraph", (Run("Moorings close at dusk."), NoteRef(two, True))),
        Block("paragraph", (Run("The permit comes first."), NoteRef(one, False))),
    )
    ledger = tuple(
        LedgerRow(i, LONG_CLAIM, "fact", "supported", "Supported", 0.91, 0.87, "high",
                  "[1] Rivergrove Ord. § 7.2, p. 3")
        for i in range(1, claims + 1)
    )
    turn = TurnPart(1, "Do I need a permit for a dock?", "completed", "", blocks, ledger,
                    ("Retrieval confidence: high (0.90) — strong match",))
    return SessionDocument(7, "Dock permits", (("Workspace", "Demo"),), (turn,), NOTES, "ab" * 32)


def ledger_table(document) -> boxes.TableBox:
    """The laid-out evidence-ledger table of a rendered WeasyPrint document."""
    def walk(box):
        yield box
        for child in getattr(box, "children", ()):
            yield from walk(child)

    return next(b for page in document.pages for b in walk(page._page_box)
                if isinstance(b, boxes.TableBox) and b.element is not None
                and "ledger" in (b.element.get("class") or ""))


def test_the_pdf_ledger_has_fixed_columns_with_the_claim_widest():
    html = render_to_string("exports/session.html", {"doc": make_doc()})
    document = HTML(string=html, base_url=STATIC_DIR.as_uri() + "/",
                    url_fetcher=StaticOnlyFetcher()).render(font_config=pdf.font_config())
    table = ledger_table(document)
    # Fixed layout: WeasyPrint never measures every cell's content width (the slow part).
    assert table.style["table_layout"] == "fixed"
    number, claim, verdict, score, confidence, source = table.column_widths
    assert claim > 3 * verdict and claim > source > verdict > number
    assert score < verdict


def test_pdf_exports_reuse_one_font_configuration_per_thread(monkeypatch):
    monkeypatch.setattr(pdf, "_local", pdf.threading.local())
    with mock.patch.object(pdf, "FontConfiguration", wraps=pdf.FontConfiguration) as built:
        first = render_pdf(make_doc(claims=2))
        second = render_pdf(make_doc(claims=2))
    assert first.startswith(b"%PDF-") and second.startswith(b"%PDF-")
    assert built.call_count == 1


def docx_parts(content: bytes) -> tuple:
    """(document.xml, footnotes.xml) of a .docx, parsed."""
    with zipfile.ZipFile(io.BytesIO(content)) as package:
        return (parse_xml(package.read("word/document.xml")),
                parse_xml(package.read("word/footnotes.xml")))


def test_a_repeated_citation_in_word_is_a_footnote_reference_field_to_the_same_note():
    body, notes = docx_parts(render_docx(make_doc()))
    footnotes = [n for n in notes.findall(qn("w:footnote")) if int(n.get(qn("w:id"))) > 0]
    assert [n.get(qn("w:id")) for n in footnotes] == ["1", "2"]  # one footnote per chunk
    assert [r.get(qn("w:id")) for r in body.iter(qn("w:footnoteReference"))] == ["1", "2"]
    third = body.findall(".//" + qn("w:p"))
    third = next(p for p in third if "The permit comes first." in "".join(t.text for t in p.iter(qn("w:t"))))
    # The repeat: a NOTEREF field (formatted as a footnote mark, a link) to a bookmark
    # around footnote 1's reference, showing "1" in the footnote-reference style.
    instr = "".join(t.text for t in third.iter(qn("w:instrText")))
    bookmark = re.fullmatch(r" NOTEREF (\S+) \\f \\h ", instr).group(1)
    start = next(b for b in body.iter(qn("w:bookmarkStart")) if b.get(qn("w:name")) == bookmark)
    marked = start.getnext()
    assert marked.find(qn("w:footnoteReference")).get(qn("w:id")) == "1"
    assert marked.getnext().tag == qn("w:bookmarkEnd")
    kinds = [f.get(qn("w:fldCharType")) for f in third.iter(qn("w:fldChar"))]
    assert kinds == ["begin", "separate", "end"]
    runs = third.findall(qn("w:r"))
    result = [r for r in runs if r.find(qn("w:t")) is not None][-1]
    assert result.find(qn("w:t")).text == "1"
    assert result.find(f"{qn('w:rPr')}/{qn('w:rStyle')}").get(qn("w:val")) == "FootnoteReference"
    assert result.getprevious().find(qn("w:fldChar")).get(qn("w:fldCharType")) == "separate"


def test_the_word_ledger_gives_the_claim_the_widest_column_and_verdict_and_score_narrow_ones():
    document = Document(io.BytesIO(render_docx(make_doc(claims=3))))
    ledger = next(t for t in document.tables if t.rows[0].cells[1].text == "Claim")
    grid = [c.width for c in ledger.columns]
    number, claim, verdict, score, confidence, source = grid
    assert claim > 3 * verdict and claim > source > verdict > score > number
    assert sum(grid) <= document.sections[0].page_width - document.sections[0].left_margin \
        - document.sections[0].right_margin
    for row in ledger.rows:  # Word reads the cells' widths
        assert [c.width for c in row.cells] == grid
    assert ledger.autofit is False


def test_markdown_answer_headings_never_skip_a_level():
    notes = _Notes({"0123456789ab": NOTES[0]})
    blocks = answer_blocks("# Permits\n\n### Docks\n\nA dock needs one. [cite:0123456789ab]\n\n"
                           "## Fees\n\n#### Yearly\n\nText.", notes)
    text = render_markdown(make_doc(blocks=blocks)).decode()
    levels = [int(t.tag[1]) for t in MarkdownIt("commonmark").parse(text) if t.type == "heading_open"]
    assert levels[0] == 1
    assert all(b <= a + 1 for a, b in zip(levels, levels[1:], strict=False)), levels
    assert "#### Permits" in text and "##### Docks" in text and "##### Fees" in text
    assert "###### Yearly" in text


@pytest.mark.parametrize(("raw", "expected"), [
    ("d.** The dock must be licensed", "d. The dock must be licensed"),
    ("## § 7.2 Floating docks\nUnder **§ 7.2** a _café_ must",
     "§ 7.2 Floating docks Under § 7.2 a café must"),
    ("*Id.* at `§ 3` ~~old~~", "Id. at § 3 old"),
    ("snake_case stays, 5 * 3 stays, #7 stays", "snake_case stays, 5 * 3 stays, #7 stays"),
])
def test_plain_removes_markdown_emphasis_and_heading_hashes(raw, expected):
    assert plain(raw) == expected
