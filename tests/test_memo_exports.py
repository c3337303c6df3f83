"""Exports of a Draft memo (issue 13, items 3 and 4): every format opens with the memo
itself, the record after it; the To / From / Date / Re values given at export fill the
header of the file only, escaped, for members of the workspace only."""

import io
import json
import re

import pytest
from django.urls import reverse
from docx import Document

from exports.memo import MemoFields, memo_fields_parse, memo_filled
from exports.services import session_export
from sessions.services import session_ask
from tests.test_exports import pdf_text
from verification.skeptic import memo_header_end

pytestmark = pytest.mark.django_db

TREES = "Draft a memo on tree removal permits and penalties in Rivergrove"


@pytest.fixture
def memo_session(demo_workspace, owner):
    return session_ask(workspace=demo_workspace, user=owner, mode="draft", question=TREES).session


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def test_the_markdown_export_opens_with_the_memo_and_the_record_follows(memo_session):
    text = session_export(session=memo_session, fmt="md").content.decode()
    assert text.startswith("# MEMORANDUM\n")
    memo_end = text.index("| Field | Value |")
    memo, record = text[:memo_end], text[memo_end:]
    for section in ("## Question Presented", "## Short Answer", "## Discussion",
                    "## Requirements and permits", "## Open questions", "## Sources"):
        assert section in memo
    assert "$5,000.00 per tree[^" in memo  # citations are footnote calls in the memo
    assert "### Evidence ledger" in record and "## Question 1" in record
    assert "The memo is at the start of this file." in record
    assert record.count("## Short Answer") == 0  # the memo is not repeated


def test_the_docx_and_pdf_exports_open_with_the_memo(memo_session):
    docx = Document(io.BytesIO(session_export(session=memo_session, fmt="docx").content))
    texts = [p.text for p in docx.paragraphs if p.text.strip()]
    assert texts[0] == "MEMORANDUM"
    assert texts.index("Short Answer") < texts.index("Evidence ledger")
    assert texts.index("Sources") < texts.index(memo_session.title)
    pdf = pdf_text(session_export(session=memo_session, fmt="pdf").content)
    assert pdf.lstrip().startswith("MEMORANDUM")
    assert pdf.index("Short Answer") < pdf.index("Workspace") < pdf.index("Evidence ledger")


def test_the_json_export_keeps_the_stored_memo(memo_session):
    data = json.loads(session_export(session=memo_session, fmt="json").content)
    assert data["turns"][0]["answer_markdown"].startswith("# MEMORANDUM")
    # Header values given at export stay out of the sealed record (before, the JSON's
    # answer differed from its seal and events while it reported the log intact).
    filled = json.loads(session_export(session=memo_session, fmt="json", memo=MemoFields(to="Jane")).content)
    assert filled["turns"][0]["answer_markdown"] == data["turns"][0]["answer_markdown"]
    assert "Jane" not in json.dumps(filled["turns"])


def test_an_answer_session_still_opens_with_its_title(demo_workspace, owner):
    session = session_ask(workspace=demo_workspace, user=owner,
                          question="What is the fine for cutting a tree in Rivergrove?").session
    text = session_export(session=session, fmt="md").content.decode()
    assert text.startswith(f"# {session.title}") and "MEMORANDUM" not in text


def test_the_header_fields_fill_the_exported_memo_escaped(owner_client, memo_session):
    response = owner_client.post(reverse("session-export", args=[memo_session.pk, "md"]), {
        "to": "Jane Roe, <b>Partner</b>", "from": "A. Lawyer", "date": "March 3, 2026",
        "re": "Trees [cite:0123456789ab] # not a heading"})
    assert response.status_code == 200
    text = response.content.decode()
    header = text.split("## Question Presented", 1)[0]
    assert "**To:** Jane Roe, \\<b\\>Partner\\</b\\>" in header
    assert "**From:** A. Lawyer" in header and "**Date:** March 3, 2026" in header
    assert "**Re:** Trees \\# not a heading" in header  # a citation marker is dropped, not a footnote
    assert "[Recipient]" not in header
    # The stored memo keeps its placeholders; only the file changed.
    memo_session.refresh_from_db()
    stored = memo_session.turns.get().answer_markdown
    assert "**To:** [Recipient]" in stored and "Jane Roe" not in stored
    pdf = pdf_text(owner_client.post(reverse("session-export", args=[memo_session.pk, "pdf"]),
                                     {"to": "Jane <b>Roe</b>"}).content)
    assert "To: Jane <b>Roe</b>" in pdf


def test_the_session_page_offers_the_header_fields_next_to_the_export_buttons(owner_client, memo_session):
    html = owner_client.get(reverse("session", args=[memo_session.pk])).content.decode()
    exports = html[html.index('data-export-download'):html.index("data-export-status")]
    for name in ("to", "from", "date", "re"):
        assert re.search(rf'<input type="text" name="{name}"', exports)
    assert exports.count("formaction=") == 4


def test_an_outsider_cannot_export_with_header_fields(client, outsider, memo_session):
    client.force_login(outsider)
    response = client.post(reverse("session-export", args=[memo_session.pk, "md"]), {"to": "X"})
    assert response.status_code == 404


def test_a_too_long_field_is_refused(owner_client, memo_session):
    response = owner_client.post(reverse("session-export", args=[memo_session.pk, "md"]), {"re": "x" * 201})
    assert response.status_code == 400


def test_only_a_memo_header_is_filled(memo_session):
    stored = memo_session.turns.get().answer_markdown
    filled = memo_filled(stored, memo_fields_parse({"to": "  Jane\n Roe ", "from": ""}))
    assert "**To:** Jane Roe" in filled and "**From:** [Author]" in filled
    assert filled.split("## Question Presented")[1] == stored.split("## Question Presented")[1]
    body = "**To:** somebody in a quoted answer"
    assert memo_filled(body, MemoFields(to="Jane")) == body


def test_a_model_writers_bold_memo_title_is_a_memo_for_the_exports_too():
    # One reading of "is this a memo" (verification.skeptic.memo_header_end) serves the
    # Skeptic, the exports and the rubric; the exports used to want "# MEMORANDUM" alone.
    memo = ("**MEMORANDUM**\n\n**To:** [Recipient]\n\n**Re:** Docks\n\n## Short Answer\n\n"
            "**To:** a quoted line after the header is left alone.")
    filled = memo_filled(memo, MemoFields(to="Jane"))
    assert filled.startswith("**MEMORANDUM**\n\n**To:** Jane\n")
    assert filled.endswith("**To:** a quoted line after the header is left alone.")
    assert memo_header_end("A plain answer. **MEMORANDUM**") is None
