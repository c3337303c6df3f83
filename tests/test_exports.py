"""Exports read back: Markdown footnotes resolve, the PDF shows its footnotes and ledger,
the DOCX has real Word footnotes, the JSON validates against its schema; every export
is recorded, and the PDF renderer fetches nothing from the network."""

import hashlib
import io
import json
import re
import socket
import subprocess
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from docx import Document
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from jsonschema import Draft202012Validator
from markdown_it import MarkdownIt

from ciq.roles import role_backend
from exports.data import session_data
from exports.document import session_document
from exports.docx import render_docx
from exports.json import session_schema
from exports.markdown import render_markdown
from exports.models import ExportRecord
from exports.pdf import STATIC_DIR, FetchRefused, StaticOnlyFetcher, render_pdf
from exports.services import CONTENT_TYPES, FORMATS, session_export
from retrieval.services import documents_ingest
from sessions.audit import turn_seal
from sessions.models import Revision, RunStatus, Turn
from sessions.pipeline import turn_run
from sessions.selectors import turn_ledger
from sessions.services import session_ask, turn_create
from verification.judge import EvidenceChunk
from verification.models import Claim, LedgerEntry, Verdict
from verification.services import claim_verify, ledger_save

pytestmark = pytest.mark.django_db

CAFE_DOC = """# Café dock licences — 码头许可

## § 7.2 Floating docks of cafés

Under § 7.2 of the Rivergrove Café Dock Ordinance, a café operating a floating dock on the \
Tualatin River must hold a café dock licence (码头许可证) issued by the Mayor before opening — \
no exceptions.

The café dock licence fee is 75 dollars per year, payable to the City Recorder.
"""
CAFE_MANIFEST = (
    "path,title,jurisdiction,jurisdiction_level,source_type,citation_label,last_updated\n"
    "cafe-docks.md,Rivergrove Café Dock Ordinance — 码头条例,US-OR-Rivergrove,municipal,"
    "ordinance,Rivergrove Café Ord. § 7.2,2025-01-15\n"
)
INJECTED = '<img src="http://127.0.0.1:9/pixel.png"> url(http://127.0.0.1:9/bg.css) # | *'
UNSUPPORTED = "The Rivergrove harbour master charges a mooring tax of 900 yen per kayak each Sunday."


def add_unsupported_claim(turn: Turn) -> None:
    """A new revision of ``turn`` whose text adds an unsupported sentence, verified by the
    real Skeptic and Judge and stored with ``ledger_save`` (as a pipeline cycle would)."""
    chunk_id = turn.sources[0]["chunk_id"]
    text = f"{turn.answer_markdown}\n\n{UNSUPPORTED} [cite:{chunk_id}]"
    evidence = [EvidenceChunk(chunk_id=s["chunk_id"], text=s["text"]) for s in turn.sources]
    verified = [
        claim_verify(claim=c, evidence=evidence, mode="strict", judge=role_backend("judge"))
        for c in role_backend("skeptic").extract(text)
    ]
    cycle = turn.revisions.order_by("-cycle").first().cycle + 1
    revision = Revision.objects.create(turn=turn, cycle=cycle, text=text, coverage=0.5)
    ledger_save(turn=turn, revision=revision, verified=verified,
                chunk_pks={s["chunk_id"]: s["chunk_pk"] for s in turn.sources})
    Turn.objects.filter(pk=turn.pk).update(answer_markdown=text)


@pytest.fixture
def session(demo_workspace, owner, tmp_path):
    """Three turns: dock permits in Rivergrove; a follow-up (§, é, —, CJK) answered from an
    extra document; a question carrying markup, with an unsupported (not_found) claim."""
    (tmp_path / "cafe-docks.md").write_text(CAFE_DOC, encoding="utf-8")
    (tmp_path / "manifest.csv").write_text(CAFE_MANIFEST, encoding="utf-8")
    summary = documents_ingest(workspace=demo_workspace, paths=[tmp_path / "cafe-docks.md"],
                               manifest=tmp_path / "manifest.csv")
    assert summary.failed == 0
    first = session_ask(
        workspace=demo_workspace, user=owner, jurisdictions=["US-OR-Rivergrove"],
        question="What permits are needed to build or replace a dock in Rivergrove?",
    )
    session = first.session
    second = turn_run(turn_create(
        session=session,
        question="Which licence must a café with a floating dock hold under § 7.2 — 码头许可证?",
    ))
    with mock.patch("sessions.pipeline.turn_seal"):  # sealed below, with the added claim
        third = turn_run(turn_create(
            session=session, question=f"What are the dock development standards? {INJECTED}",
        ))
    for turn in (first, second, third):
        assert turn.status == RunStatus.COMPLETED, turn.error
    assert "码头许可证" in second.answer_markdown
    add_unsupported_claim(third)
    turn_seal(turn=third)
    assert turn_ledger(turn=third).filter(ledger__verdict=Verdict.NOT_FOUND).exists()
    session.refresh_from_db()
    return session


def export_text(session, fmt, user=None) -> str:
    return session_export(session=session, fmt=fmt, user=user).content.decode("utf-8")


def pdf_text(content: bytes) -> str:
    return subprocess.run(["pdftotext", "-layout", "-", "-"], input=content, capture_output=True,
                          check=True).stdout.decode("utf-8")


def test_every_format_is_recorded_with_its_hash_size_user_and_log_head(session, owner):
    head = session.events.order_by("-seq").first()
    for fmt in FORMATS:
        result = session_export(session=session, fmt=fmt, user=owner)
        record = ExportRecord.objects.get(pk=result.record.pk)
        assert (record.session, record.user, record.format) == (session, owner, fmt)
        assert record.size_bytes == len(result.content) > 0
        assert re.fullmatch(r"[0-9a-f]{64}", record.sha256)
        assert record.sha256 == hashlib.sha256(result.content).hexdigest()
        assert (record.log_seq, record.log_hash) == (head.seq, head.hash)
        assert result.filename == f"ciq-session-{session.pk}.{fmt}"
        assert result.content_type == CONTENT_TYPES[fmt]
    assert ExportRecord.objects.filter(session=session).count() == len(FORMATS)


def test_an_unknown_format_is_refused_and_nothing_is_recorded(session):
    with pytest.raises(ValidationError) as error:
        session_export(session=session, fmt="rtf")
    assert "format" in error.value.message_dict
    assert not ExportRecord.objects.exists()


def test_exporting_leaves_the_session_unchanged(session):
    before = (session.events.count(), Claim.objects.filter(turn__session=session).count(),
              LedgerEntry.objects.filter(claim__turn__session=session).count())
    for fmt in FORMATS:
        session_export(session=session, fmt=fmt)
    after = (session.events.count(), Claim.objects.filter(turn__session=session).count(),
             LedgerEntry.objects.filter(claim__turn__session=session).count())
    assert before == after


def test_markdown_footnotes_resolve_and_user_text_stays_text(session):
    text = export_text(session, "md")
    calls = set(re.findall(r"\[\^(\d+)\](?!:)", text))
    definitions = dict(re.findall(r"^\[\^(\d+)\]: (.+)$", text, re.M))
    assert calls and calls == set(definitions)
    assert [int(n) for n in definitions] == list(range(1, len(definitions) + 1))
    cafe = next(v for v in definitions.values() if "Café Dock Ordinance" in v)
    assert "码头条例" in cafe and "Rivergrove Café Ord. § 7.2" in cafe and "码头许可证" in cafe
    for turn in range(1, 4):
        assert f"## Question {turn}" in text
    assert "| Not found |" in text and UNSUPPORTED in text
    assert "Retrieval confidence:" in text and "Claim confidence:" in text
    head = session.events.order_by("-seq").first()
    assert head.hash in text
    # The question's markup is escaped: a CommonMark parser sees no HTML in the export.
    assert r"\<img src=" in text
    tokens = MarkdownIt("commonmark").parse(text)
    inline = [c for t in tokens for c in (t.children or [])]
    assert not [t for t in tokens + inline if t.type.startswith("html")]


def test_pdf_has_footnotes_at_the_page_bottom_and_the_ledger(session):
    content = session_export(session=session, fmt="pdf").content
    assert content.startswith(b"%PDF-")
    text = pdf_text(content)
    pages = text.split("\f")
    # Footnote 1 sits on its own line at the foot of the page that calls it, after the body.
    first = next(p for p in pages if re.search(r"^1\. \S", p, re.M))
    body, _, foot = first.partition(re.search(r"^1\. \S.*$", first, re.M).group(0))
    assert "Question 1" in body and "page 1 of" in foot
    assert re.search(r"^\d+\. Rivergrove Café Dock Ordinance — 码头条例 — Rivergrove Café Ord\. § 7\.2", text,
                     re.M)
    assert "Evidence ledger" in text and "Not found" in text and "Supported" in text
    assert "码头许可证" in text and "é" in text and "—" in text
    assert '<img src="http://127.0.0.1:9/pixel.png">' in text  # shown as text, never loaded
    flat = "".join(text.split())
    assert session.events.order_by("-seq").first().hash in flat


def test_pdf_rendering_fetches_only_its_own_stylesheet(session, monkeypatch):
    fetched, connected = [], []
    real_fetch = StaticOnlyFetcher.fetch

    def recording_fetch(self, url, headers=None):
        fetched.append(url)
        return real_fetch(self, url, headers)

    monkeypatch.setattr(StaticOnlyFetcher, "fetch", recording_fetch)
    monkeypatch.setattr(socket.socket, "connect", lambda *a: connected.append(a))
    session_export(session=session, fmt="pdf")
    assert fetched == [(STATIC_DIR / "session.css").as_uri()]
    assert connected == []


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/pixel.png", "https://example.com/a.css", "data:text/css,body{}",
    "file:///etc/passwd", (STATIC_DIR / ".." / ".." / "models.py").as_uri(),
])
def test_the_fetcher_refuses_everything_but_the_exports_static_files(url):
    with pytest.raises(FetchRefused):
        StaticOnlyFetcher().fetch(url)


def test_markup_reaching_weasyprint_unescaped_still_fetches_nothing(monkeypatch):
    from weasyprint import HTML

    connected = []
    monkeypatch.setattr(socket.socket, "connect", lambda *a: connected.append(a))
    html = ('<p style="background: url(http://127.0.0.1:9/bg.png)">x'
            '<img src="http://127.0.0.1:9/pixel.png"><img src="file:///etc/hostname"></p>')
    assert HTML(string=html, url_fetcher=StaticOnlyFetcher()).write_pdf().startswith(b"%PDF-")
    assert connected == []


def test_docx_has_real_word_footnotes_and_the_ledger(session):
    content = session_export(session=session, fmt="docx").content
    document = Document(io.BytesIO(content))
    # python-docx reads the footnotes part back as a plain part: parse its XML.
    notes_xml = parse_xml(document.part.part_related_by(RT.FOOTNOTES).blob)
    notes = [n for n in notes_xml.findall(qn("w:footnote"))
             if int(n.get(qn("w:id"))) > 0]
    cited = json.loads(export_text(session, "json"))["chunks_cited"]
    assert len(notes) == len(cited) > 0
    references = document.element.body.findall(".//" + qn("w:footnoteReference"))
    assert [r.get(qn("w:id")) for r in references] == [str(i) for i in range(1, len(cited) + 1)]
    note_texts = ["".join(t.text for t in n.iter(qn("w:t"))) for n in notes]
    assert any("Rivergrove Café Dock Ordinance — 码头条例" in t and "码头许可证" in t for t in note_texts)
    paragraphs = "\n".join(p.text for p in document.paragraphs)
    assert "Question 3" in paragraphs and INJECTED in paragraphs
    ledgers = [t for t in document.tables if t.rows[0].cells[1].text == "Claim"]
    assert len(ledgers) == 3
    verdicts = [row.cells[2].text for t in ledgers for row in t.rows[1:]]
    assert "Not found" in verdicts and "Supported" in verdicts


def test_json_validates_against_its_schema_and_is_complete(session):
    data = json.loads(export_text(session, "json"))
    validator = Draft202012Validator(session_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert list(validator.iter_errors(data)) == []
    assert data["schema"] == "ciq.session/1"
    assert [t["turn"] for t in data["turns"]] == [1, 2, 3]
    assert data["turns"][1]["question"].endswith("码头许可证?")
    assert [c["number"] for c in data["chunks_cited"]] == list(range(1, len(data["chunks_cited"]) + 1))
    assert len(data["events"]) == session.events.count() == data["event_log"]["count"]
    assert data["event_log"]["intact"] is True
    assert data["event_log"]["head_hash"] == session.events.order_by("-seq").first().hash
    verdicts = [row["verdict"] for t in data["turns"] for row in t["ledger"]]
    assert "not_found" in verdicts


def test_an_edited_event_log_shows_in_every_export(session):
    event = session.events.get(seq=2)
    event.payload = {**event.payload, "text": "rewritten"}
    event.save()
    assert json.loads(export_text(session, "json"))["event_log"]["intact"] is False
    assert "CHAIN BROKEN: seq 2: hash mismatch" in export_text(session, "md")
    assert "CHAIN BROKEN" in pdf_text(session_export(session=session, fmt="pdf").content)


def test_snippets_lose_their_markdown_debris_in_every_format(session):
    data = session_data(session=session, user=None, exported_at=timezone.now())
    row = next(r for t in data["turns"] for r in t["ledger"] if r["evidence_chunk_id"] and r["snippet"])
    row["snippet"] = "## § 7.2 Floating docks\nd.** The dock **must** be _licensed_ before opening."
    doc = session_document(data)
    clean = "§ 7.2 Floating docks d. The dock must be licensed before opening."
    assert clean in [n.snippet for n in doc.notes]
    markdown = render_markdown(doc).decode()
    assert f"“{clean}”" in markdown.replace("\\", "")
    assert "d.\\*\\*" not in markdown and "\\#\\#" not in markdown
    assert "".join(clean.split()) in "".join(pdf_text(render_pdf(doc)).split())
    notes = parse_xml(Document(io.BytesIO(render_docx(doc))).part.part_related_by(RT.FOOTNOTES).blob)
    note_texts = ["".join(t.text for t in n.iter(qn("w:t"))) for n in notes.findall(qn("w:footnote"))]
    assert any(clean in t for t in note_texts)
    assert not any("**" in t or "##" in t for t in note_texts)
