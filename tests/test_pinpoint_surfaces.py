"""Pinpoint citations wherever a source is named: the turn's source snapshot and live
events, the session page (sources and evidence ledger), the chunk page, the API, the
``ask`` command and the four exports; a turn stored before pinpoints gets them computed
on read while its stored snapshot and audit seal stay as they were."""

import io
import json
import re
import subprocess
from dataclasses import asdict
from unittest import mock

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils.html import escape
from docx import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from jsonschema import Draft202012Validator

from exports.json import session_schema
from exports.services import session_export
from retrieval.models import Chunk
from retrieval.pinpoint import pinpoint_label
from retrieval.search import RetrievedChunk
from sessions.audit import session_log_verify
from sessions.models import EventType, RunStatus, Turn
from sessions.selectors import turn_as_dict
from sessions.services import session_ask
from tests.api_support import token_client

pytestmark = pytest.mark.django_db

# Regulation F's exemption sections: the answer cites "12 CFR § 1006.x", not the part.
QUESTION = "How does a state apply for an exemption from the Fair Debt Collection Practices Act?"
# One section, or the sections of a chunk the answer quotes ("12 CFR § 1006.6; 12 CFR § 1006.7").
SECTIONS = r"12 CFR § 1006\.\d+(?:; 12 CFR § 1006\.\d+)*"


def old_as_source(self) -> dict:
    """``RetrievedChunk.as_source`` as it was before pinpoints were stored."""
    data = asdict(self)
    data["last_updated"] = self.last_updated.isoformat() if self.last_updated else None
    return data


@pytest.fixture
def session(demo_workspace, owner):
    turn = session_ask(workspace=demo_workspace, user=owner, question=QUESTION)
    assert turn.status == RunStatus.COMPLETED, turn.error
    return turn.session


@pytest.fixture
def old_session(demo_workspace, owner):
    """A session whose turn ran (and was sealed) before pinpoints were stored."""
    with mock.patch.object(RetrievedChunk, "as_source", old_as_source), \
            mock.patch("sessions.pipeline.sources_pinpointed", lambda sources, *_: list(sources)):
        turn = session_ask(workspace=demo_workspace, user=owner, question=QUESTION)
    assert turn.status == RunStatus.COMPLETED, turn.error
    assert not any("pinpoint" in s for s in turn.sources)
    return turn.session


def cited(session) -> list[dict]:
    """The first turn's citations as ``turn_as_dict`` gives them."""
    return turn_as_dict(turn=session.turns.get(index=1), with_events=False)["citations"]


def expected_pinpoint(source: dict) -> str:
    chunk = Chunk.objects.select_related("document").get(pk=source["chunk_pk"])
    document = chunk.document
    return pinpoint_label(citation_label=document.citation_label, title=document.title,
                          jurisdiction_level=document.jurisdiction_level, heading=chunk.heading,
                          page_start=chunk.page_start, page_end=chunk.page_end)


def pinpoint_parts(source: dict) -> set[str]:
    """The sections a source's pinpoint may name: its chunk's heading, and each CFR section
    that opens in its text (a chunk cited for sentences of two sections names both)."""
    chunk = Chunk.objects.get(pk=source["chunk_pk"])
    opened = re.findall(r"^§ (1006\.\d+)", chunk.text, re.M)
    return {expected_pinpoint(source)} | {f"12 CFR § {n}" for n in opened}


def named_sections(source: dict) -> set[str]:
    return set(source["pinpoint"].split("; "))


def test_a_new_turn_stores_each_sources_pinpoint_and_streams_it(session):
    turn = session.turns.get()
    assert turn.sources and all(named_sections(s) <= pinpoint_parts(s) for s in turn.sources)
    citations = cited(session)
    assert citations and all(re.fullmatch(SECTIONS, c["pinpoint"]) for c in citations)
    detected = session.events.filter(type=EventType.CITATION_DETECTED)
    named = {part for c in citations for part in (c["pinpoint"], *c["pinpoint"].split("; "))}
    assert detected and {e.payload["pinpoint"] for e in detected} <= named


def test_the_session_page_names_the_pinpoint_in_sources_and_ledger(client, owner, session):
    client.force_login(owner)
    html = client.get(reverse("session", args=[session.pk])).content.decode()
    sources = html.split('data-role="sources"')[1].split("</ol>")[0]
    ledger = html.split('data-role="ledger"')[1].split("</tbody>")[0]
    for c in cited(session):
        assert f'<cite class="pinpoint" data-role="pinpoint">{escape(c["pinpoint"])}</cite>' in sources
    rows = turn_as_dict(turn=session.turns.get(), with_events=False)["ledger"]
    assert any(r["pinpoint"] for r in rows)
    for row in rows:
        if row["pinpoint"]:
            assert escape(row["pinpoint"]) in ledger


def test_the_chunk_page_gives_the_pinpoint_also_for_a_retired_chunk(client, owner, session):
    client.force_login(owner)
    citation = cited(session)[0]
    url = reverse("chunk", args=[session.pk, citation["chunk_id"]])
    cite_as = f'<cite class="pinpoint" data-role="pinpoint">{escape(citation["pinpoint"])}</cite>'
    assert cite_as in client.get(url).content.decode()
    Chunk.objects.get(document__workspace=session.workspace, chunk_id=citation["chunk_id"]).document.delete()
    html = client.get(url).content.decode()
    assert 'data-role="retired"' in html and cite_as in html


def test_the_api_gives_pinpoints_on_citations_ledger_rows_and_sources(owner, session):
    api = token_client(owner)
    turn = api.get(f"/api/v1/sessions/{session.pk}/").json()["turns"][0]
    sources = {s["chunk_id"]: s["pinpoint"] for s in turn["sources"]}
    assert turn["citations"] and all(c["pinpoint"] == sources[c["chunk_id"]] for c in turn["citations"])
    assert all(r["pinpoint"] == sources.get(r["evidence_chunk_id"], "") for r in turn["ledger"])
    ledger = api.get(f"/api/v1/sessions/{session.pk}/ledger/").json()["ledger"]
    assert [r["pinpoint"] for r in ledger] == [r["pinpoint"] for r in turn["ledger"]]
    assert any(r["pinpoint"].startswith("12 CFR § 1006.") for r in ledger)


def test_ask_prints_the_pinpoint_in_sources_and_ledger():
    out = io.StringIO()
    call_command("ask", QUESTION, "--workspace", "Demo", stdout=out)
    text = out.getvalue()
    sources = text.split("Sources")[1].split("Evidence ledger")[0]
    assert re.search(r"\[1\] 12 CFR § 1006\.\d+ \(US, federal\)", sources)
    ledger = text.split("Evidence ledger")[1]
    assert re.search(r"\[1\] 12 CFR § 1006\.\d+", ledger)


def pdf_text(content: bytes) -> str:
    return subprocess.run(["pdftotext", "-layout", "-", "-"], input=content, capture_output=True,
                          check=True).stdout.decode("utf-8")


def test_every_export_footnotes_the_pinpoint(session):
    data = json.loads(session_export(session=session, fmt="json").content)
    validator = Draft202012Validator(session_schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert list(validator.iter_errors(data)) == []
    notes = data["chunks_cited"]
    assert notes and all(re.fullmatch(SECTIONS, n["pinpoint"]) for n in notes)
    turn = data["turns"][0]
    assert [c["pinpoint"] for c in turn["citations"]] == [n["pinpoint"] for n in notes]
    assert any(r["pinpoint"] for r in turn["ledger"])

    markdown = session_export(session=session, fmt="md").content.decode()
    for n in notes:
        assert f"[^{n['number']}]: {n['document_title']} — {n['pinpoint']}. “" in markdown
    numbers = {n["chunk_id"]: n["number"] for n in notes}
    for row in turn["ledger"]:  # the ledger's source cell, Markdown-escaped
        if row["evidence_chunk_id"] in numbers:
            assert f"| \\[{numbers[row['evidence_chunk_id']]}\\] {row['pinpoint']} |" in markdown

    flat_pdf = "".join(pdf_text(session_export(session=session, fmt="pdf").content).split())
    document = DocxDocument(io.BytesIO(session_export(session=session, fmt="docx").content))
    footnotes = parse_xml(document.part.part_related_by(RT.FOOTNOTES).blob)
    docx_notes = ["".join(t.text for t in n.iter(qn("w:t"))) for n in footnotes.findall(qn("w:footnote"))
                  if int(n.get(qn("w:id"))) > 0]
    for n in notes:
        assert "".join(f"{n['number']}.{n['document_title']}—{n['pinpoint']}".split()) in flat_pdf
        assert f" {n['document_title']} — {n['pinpoint']}. " in docx_notes[n["number"] - 1]


def test_an_old_turn_gets_pinpoints_on_read_and_keeps_its_snapshot_and_seal(client, owner, old_session):
    turn = old_session.turns.get()
    stored = list(turn.sources)
    data = turn_as_dict(turn=turn, with_events=False)
    assert data["sources"] and all(s["pinpoint"] == expected_pinpoint(s) for s in data["sources"])
    assert all(c["pinpoint"] for c in data["citations"])

    client.force_login(owner)
    html = client.get(reverse("session", args=[old_session.pk])).content.decode()
    assert escape(data["citations"][0]["pinpoint"]) in html
    api = token_client(owner).get(f"/api/v1/sessions/{old_session.pk}/").json()["turns"][0]
    assert [c["pinpoint"] for c in api["citations"]] == [c["pinpoint"] for c in data["citations"]]
    markdown = session_export(session=old_session, fmt="md").content.decode()
    assert f"— {data['citations'][0]['pinpoint']}. “" in markdown

    assert Turn.objects.get(pk=turn.pk).sources == stored  # never rewritten
    assert session_log_verify(session=old_session) == []


def test_a_follow_up_carries_earlier_citations_with_their_pinpoints(session):
    # A stored snapshot holds "pinpoint", which is no field of RetrievedChunk: the chunks
    # the first answer cited are carried into an unrelated follow-up all the same.
    from sessions.pipeline import turn_run
    from sessions.services import turn_create

    follow = turn_run(turn_create(session=session,
                                  question="What does Rivergrove require before removing a tree?"))
    assert follow.status == RunStatus.COMPLETED, follow.error
    carried = session.events.filter(type=EventType.RETRIEVAL_COMPLETED).order_by("-seq").first()
    assert carried.payload["carried"] >= 1
    first = {c["chunk_id"] for c in cited(session)}
    again = [s for s in follow.sources if s["chunk_id"] in first]
    # each carried chunk keeps a pinpoint: the sections the follow-up quotes, else its heading's
    assert again and all(s["pinpoint"] and named_sections(s) <= pinpoint_parts(s) for s in again)


def test_related_passages_of_an_unanswered_turn_name_their_pinpoint(demo_workspace, owner):
    turn = session_ask(workspace=demo_workspace, user=owner,
                       question="What does the Closing Disclosure have to show about escrow?")
    assert turn.outcome == "not_answered"
    related = turn.answer_markdown.split("## Related passages")[1]
    lines = [line for line in related.splitlines() if line.startswith("- “")]
    pinpoints = {s["pinpoint"] for s in turn.sources}
    assert lines and all(line.rpartition("” — ")[2].replace("\\", "") in pinpoints for line in lines)
