"""DOCX export with real Word footnotes.

python-docx has no footnote API, so ``Footnotes`` adds the footnotes part through its
XML layer: part ``/word/footnotes.xml`` related to the document with ``RT.FOOTNOTES``,
the separator footnotes -1 and 0 that Word expects, the "footnote text" and "footnote
reference" styles, and a ``w:footnoteReference`` run in the text for each note. A
chunk cited again points to its one footnote the way Word's "Insert cross-reference →
Footnote number (formatted)" does: the first reference is bookmarked and a later one is
a ``NOTEREF <bookmark> \\f \\h`` field, shown as the same footnote mark and linked to
the note. Text is set through lxml (``w:t``), so it is escaped as XML.
"""

from __future__ import annotations

import io

from docx import Document
from docx.enum.style import WD_STYLE_TYPE
from docx.opc.constants import CONTENT_TYPE as CT
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import XmlPart
from docx.oxml import OxmlElement, parse_xml
from docx.oxml.ns import nsdecls, qn
from docx.shared import Emu, Pt
from docx.text.paragraph import Paragraph

from exports.document import Block, Note, NoteRef, SessionDocument

_FOOTNOTES_XML = (
    f"<w:footnotes {nsdecls('w', 'r')}>"
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:pPr><w:spacing w:after="0" '
    'w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:pPr><w:spacing '
    'w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:continuationSeparator/>'
    "</w:r></w:p></w:footnote></w:footnotes>"
)


class Footnotes:
    """The footnotes part of one python-docx ``Document``; ``add`` places a note."""

    def __init__(self, document):
        self.document = document
        self.element = parse_xml(_FOOTNOTES_XML)
        part = XmlPart(PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, self.element,
                       document.part.package)
        document.part.relate_to(part, RT.FOOTNOTES)
        styles = document.styles
        text = styles.add_style("footnote text", WD_STYLE_TYPE.PARAGRAPH)
        text.style_id, text.base_style = "FootnoteText", styles["Normal"]
        text.font.size = Pt(8)
        text.paragraph_format.space_after = Pt(0)
        ref = styles.add_style("footnote reference", WD_STYLE_TYPE.CHARACTER)
        ref.style_id = "FootnoteReference"
        ref.font.superscript = True
        # Word's own files list the separators in the settings too.
        pr = parse_xml(f'<w:footnotePr {nsdecls("w")}><w:footnote w:id="-1"/>'
                       '<w:footnote w:id="0"/></w:footnotePr>')
        document.settings.element.find(qn("w:compat")).addprevious(pr)
        self.next_id = 1
        self.bookmarks: dict[int, str] = {}  # note number -> bookmark on its reference

    def add(self, paragraph: Paragraph, note: Note) -> None:
        """Put a reference to a new footnote holding ``note`` at the end of ``paragraph``,
        inside a bookmark that later references (``repeat``) point to."""
        note_id = str(self.next_id)
        self.next_id += 1
        bookmark = self.bookmarks[note.number] = f"_RefCiqNote{note.number}"
        paragraph._p.append(OxmlElement("w:bookmarkStart", {qn("w:id"): note_id, qn("w:name"): bookmark}))
        reference = paragraph.add_run(style="footnote reference")
        reference._r.append(OxmlElement("w:footnoteReference", {qn("w:id"): note_id}))
        paragraph._p.append(OxmlElement("w:bookmarkEnd", {qn("w:id"): note_id}))

        footnote = OxmlElement("w:footnote", {qn("w:id"): note_id})
        self.element.append(footnote)
        p = OxmlElement("w:p")
        footnote.append(p)
        body = Paragraph(p, self.document.part)
        body.style = "footnote text"
        mark = body.add_run(style="footnote reference")
        mark._r.append(OxmlElement("w:footnoteRef"))
        body.add_run(f" {note.reference}. ")
        body.add_run(f"“{note.snippet}”").italic = True

    def repeat(self, paragraph: Paragraph, note: Note) -> None:
        """Refer again to ``note``'s footnote (placed by ``add``) at the end of
        ``paragraph``: a ``NOTEREF`` field whose stored result is the note's number in the
        footnote-reference style, so Word and LibreOffice show it before any field update."""
        bookmark = self.bookmarks[note.number]
        for kind, text in (("begin", None), (None, f" NOTEREF {bookmark} \\f \\h "),
                           ("separate", None), (None, None), ("end", None)):
            run = paragraph.add_run(style="footnote reference")
            if kind:
                run._r.append(OxmlElement("w:fldChar", {qn("w:fldCharType"): kind}))
            elif text:
                instr = OxmlElement("w:instrText", {qn("xml:space"): "preserve"})
                instr.text = text
                run._r.append(instr)
            else:  # the field's result as last computed
                run.text = str(note.number)


def _inlines(paragraph: Paragraph, block: Block, footnotes: Footnotes) -> None:
    for part in block.inlines:
        if isinstance(part, NoteRef):
            if part.first or part.note.number not in footnotes.bookmarks:
                footnotes.add(paragraph, part.note)
            else:
                footnotes.repeat(paragraph, part.note)
            continue
        run = paragraph.add_run(part.text)
        run.bold, run.italic = part.strong or None, part.em or None
        if part.code:
            run.font.name = "DejaVu Sans Mono"


def _block(document, block: Block, footnotes: Footnotes, depth: int = 2) -> None:
    if block.kind == "heading":  # under "Answer" (level 2); a memo opening the file keeps its own
        paragraph = document.add_heading(level=min(block.level + depth, 9))
    elif block.kind == "item":
        paragraph = document.add_paragraph(style="List Paragraph")
        paragraph.paragraph_format.left_indent = Pt(18 * block.level)
        paragraph.add_run(f"{block.marker}\t")
    else:
        paragraph = document.add_paragraph()
    _inlines(paragraph, block, footnotes)


# Shares of the text width per column.
META_WIDTHS = (0.28, 0.72)
LEDGER_WIDTHS = (0.05, 0.41, 0.12, 0.08, 0.14, 0.20)  # #, claim, verdict, score, confidence, source


def _table(document, header: tuple[str, ...], rows, shares: tuple[float, ...]) -> None:
    """A grid table with a bold header row and fixed column widths, ``shares`` of the
    text width (set on the grid for LibreOffice and on every cell for Word)."""
    section = document.sections[-1]
    text_width = section.page_width - section.left_margin - section.right_margin
    widths = [Emu(int(text_width * share)) for share in shares]
    table = document.add_table(rows=1, cols=len(header), style="Table Grid")
    table.autofit = False
    for column, width in zip(table.columns, widths, strict=True):
        column.width = width
    for cell, text in zip(table.rows[0].cells, header, strict=True):
        cell.text = text
        cell.paragraphs[0].runs[0].bold = True
    for row in rows:
        for cell, text in zip(table.add_row().cells, row, strict=True):
            cell.text = text
    for row in table.rows:
        for cell, width in zip(row.cells, widths, strict=True):
            cell.width = width


def render_docx(doc: SessionDocument) -> bytes:
    """The session as a Word document (.docx), as bytes."""
    document = Document()
    document.core_properties.title = doc.title[:255]
    document.core_properties.subject = f"CIQ research session {doc.session_id}"
    footnotes = Footnotes(document)
    if doc.memo_first:  # a Draft session opens with its memos (SessionDocument.memo_first)
        for n, turn in enumerate(doc.turns):
            if n:
                document.add_page_break()
            for block in turn.blocks:
                _block(document, block, footnotes, depth=0)
        document.add_page_break()
    document.add_heading(doc.title, level=0 if not doc.memo_first else 1)
    _table(document, ("Field", "Value"), doc.metadata, META_WIDTHS)
    for turn in doc.turns:
        document.add_heading(f"Question {turn.index}", level=1)
        document.add_paragraph(turn.question).runs[0].italic = True
        document.add_heading("Answer" if not doc.memo_first else "Result", level=2)
        if turn.outcome:
            document.add_paragraph().add_run(f"Outcome: {turn.outcome}").bold = True
        if turn.error:
            document.add_paragraph(f"Error: {turn.error}")
        if doc.memo_first and turn.blocks:
            document.add_paragraph("The memo is at the start of this document.")
        for block in () if doc.memo_first else turn.blocks:
            _block(document, block, footnotes)
        if turn.confidence:
            document.add_heading("Confidence", level=2)
            for line in turn.confidence:
                document.add_paragraph(line)
        document.add_heading("Evidence ledger", level=2)
        _table(document, ("#", "Claim", "Verdict", "Score", "Confidence", "Source"), (
            (str(r.index), r.claim, r.verdict_label, f"{r.score:.2f}",
             f"{r.confidence:.2f} ({r.level})", r.source)
            for r in turn.ledger
        ), LEDGER_WIDTHS)
    document.add_paragraph(f"Event-log hash (sha256): {doc.log_hash or '—'}")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
