"""The outcome of a turn (answered / partially answered / not answered, issue 9) travels
with it: events, `ask --json`, the API, the admin, the session page and all four exports."""

import json
import subprocess
from io import BytesIO, StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from docx import Document

from exports.services import session_export
from sessions.models import Outcome, RunStatus
from sessions.pipeline import turn_run
from sessions.services import session_ask, turn_create
from tests.api_support import token_client

pytestmark = pytest.mark.django_db

ANSWERED = "How late can people stay in Lloyd Minor Park from May through October?"
PARTIAL = ("How late is Lloyd Minor Park open from May through October, and what is the fine "
           "for staying after closing?")
NOT_ANSWERED = "What does the Closing Disclosure have to show about escrow?"


@pytest.fixture
def session(demo_workspace, owner):
    """Three turns: answered, partially answered, not answered."""
    first = session_ask(workspace=demo_workspace, user=owner, question=ANSWERED)
    turns = [first] + [turn_run(turn_create(session=first.session, question=q))
                       for q in (PARTIAL, NOT_ANSWERED)]
    assert [t.status for t in turns] == [RunStatus.COMPLETED] * 3
    assert [t.outcome for t in turns] == [Outcome.ANSWERED, Outcome.PARTIAL, Outcome.NOT_ANSWERED]
    return first.session


def test_the_api_carries_the_outcome_answer_coverage_and_relevance(session, owner):
    api = token_client(owner)
    body = api.get(f"/api/v1/sessions/{session.pk}/").json()
    turns = body["turns"]
    assert [t["outcome"] for t in turns] == ["answered", "partial", "not_answered"]
    assert [t["answer_coverage"] for t in turns] == [1.0, 0.5, 0.0]
    assert turns[1]["answerability"]["facets"][1]["addressed"] is False
    assert all(row["relevance"] == 1.0 and row["addressed"] == [0] for row in turns[0]["ledger"])
    ledger = api.get(f"/api/v1/sessions/{session.pk}/ledger/?turn=3").json()
    assert ledger["outcome"] == "not_answered" and ledger["ledger"] == []


def test_ask_json_prints_the_outcome(demo_workspace):
    out = StringIO()
    call_command("ask", NOT_ANSWERED, "--workspace", demo_workspace.name, "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["outcome"] == "not_answered" and data["answer_coverage"] == 0.0
    done = [e for e in data["events"] if e["type"] == "generation_complete"][0]
    assert done["outcome"] == "not_answered"


def test_the_admin_lists_and_shows_the_outcome(client, django_user_model, session):
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    listing = client.get(reverse("admin:ciq_sessions_researchsession_changelist")).content.decode()
    assert "Not answered" in listing  # the latest turn's outcome
    page = client.get(reverse("admin:ciq_sessions_researchsession_change", args=[session.pk]))
    html = page.content.decode()
    assert "Turn 1: <strong>Answered</strong>" in html
    assert "Turn 2: <strong>Partially answered</strong> (answer coverage 50%)" in html
    assert "Turn 3: <strong>Not answered</strong>" in html
    filtered = client.get(reverse("admin:ciq_sessions_turn_changelist") + "?outcome=partial")
    assert filtered.context["cl"].result_count == 1
    changelist = reverse("admin:ciq_sessions_researchsession_changelist")
    assert client.get(changelist + "?outcome=not_answered").context["cl"].result_count == 1
    assert client.get(changelist + "?outcome=partial").context["cl"].result_count == 0  # not the latest


def test_the_session_page_shows_each_outcome_plainly(client, owner, session):
    client.force_login(owner)
    html = client.get(reverse("session", args=[session.pk])).content.decode()
    assert 'class="badge outcome-answered"' in html and 'class="badge outcome-not_answered"' in html
    assert "Partially answered (answer coverage 50%). Not found in the documents: " \
           "what is the fine for staying after closing." in html
    assert "Not answered: the documents searched do not answer this question." in html
    assert "Related passages (not answering the question)" in html or "Searched:" in html


def test_every_export_states_the_outcome_of_each_turn(session):
    md = session_export(session=session, fmt="md").content.decode()
    assert "**Outcome:** Answered (answer coverage 100%)" in md
    assert ("**Outcome:** Partially answered (answer coverage 50%); not found in the documents: "
            "what is the fine for staying after closing") in md
    assert "**Outcome:** Not answered (answer coverage 0%): the documents searched do not answer" in md
    data = json.loads(session_export(session=session, fmt="json").content)
    assert [t["outcome"] for t in data["turns"]] == ["answered", "partial", "not_answered"]
    pdf = subprocess.run(["pdftotext", "-", "-"], input=session_export(session=session, fmt="pdf").content,
                         capture_output=True, check=True).stdout.decode()
    assert "Outcome: Not answered" in " ".join(pdf.split())
    docx = Document(BytesIO(session_export(session=session, fmt="docx").content))
    paragraphs = [p.text for p in docx.paragraphs]
    assert "Outcome: Answered (answer coverage 100%)" in paragraphs
    assert any(p.startswith("Outcome: Not answered") for p in paragraphs)


def test_levels_and_verdicts_read_as_words_on_the_page(client, owner, demo_workspace):
    turn = session_ask(workspace=demo_workspace, user=owner, question=NOT_ANSWERED)
    client.force_login(owner)
    html = client.get(reverse("session", args=[turn.session_id])).content.decode()
    assert ">Very low</span>" in html and "Verylow" not in html


def test_the_page_says_what_retrieval_and_claim_confidence_each_rate(client, owner, session):
    """Issue 14: "Claims: high" beside "Retrieval: Medium" came with no explanation."""
    client.force_login(owner)
    html = client.get(reverse("session", args=[session.pk])).content.decode()
    assert "Retrieval rates the passages the search found" in html
    assert "how well each sentence is supported by the passage it cites" in html


def test_ledger_snippets_read_without_markdown_debris_on_the_page_and_in_the_admin(
        client, owner, session, django_user_model):
    """A snippet cut mid-markup ("d.** The dock") showed its asterisks in both ledgers."""
    from verification.models import LedgerEntry

    LedgerEntry.objects.filter(claim__turn__session=session).update(
        snippet="## Docks\nd.** The dock shall be **floating**, no piers.")
    client.force_login(owner)
    html = client.get(reverse("session", args=[session.pk])).content.decode()
    assert "Docks d. The dock shall be floating, no piers." in html and "d.**" not in html
    admin = django_user_model.objects.create_superuser("auditor", "a@example.org", "pw-audit-123")
    client.force_login(admin)
    review = client.get(f"/admin/ciq_sessions/researchsession/{session.pk}/review/").content.decode()
    assert "Docks d. The dock shall be floating, no piers." in review and "d.**" not in review
