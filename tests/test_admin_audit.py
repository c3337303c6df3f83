"""The audit admin: session list and page, the event-log check, exports, read-only rows."""

import io
import re
import zipfile

import pytest
from django.urls import reverse

from exports.models import ExportRecord
from sessions.models import ResearchSession, SessionEvent, Turn
from sessions.services import session_ask
from verification.models import Claim, LedgerEntry

pytestmark = pytest.mark.django_db

QUESTION = "When may a state apply for an exemption from the Fair Debt Collection Practices Act?"
CHANGELIST = reverse("admin:ciq_sessions_researchsession_changelist")


@pytest.fixture
def turn(demo_workspace, owner):
    return session_ask(workspace=demo_workspace, question=QUESTION, user=owner)


@pytest.fixture
def staff(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="pw-root-123"))
    return client


def act(staff, action: str, *sessions: ResearchSession, follow: bool = True):
    return staff.post(CHANGELIST, {"action": action, "_selected_action": [s.pk for s in sessions]},
                      follow=follow)


def page_messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_session_list_shows_coverage_and_contradictions_without_per_row_queries(
        staff, turn, demo_workspace, django_assert_max_num_queries):
    for _ in range(3):
        session_ask(workspace=demo_workspace, question=QUESTION)
    with django_assert_max_num_queries(12):
        response = staff.get(CHANGELIST)
    html = response.content.decode()
    assert response.status_code == 200
    coverage = f"{turn.metrics['evidence_coverage']:.0%}"
    assert f'<td class="field-coverage">{coverage}</td>' in html
    assert '<td class="field-contradiction_rate">0%</td>' in html
    assert "owner" in html and "Demo" in html


@pytest.mark.parametrize("query", ["status__exact=completed", "mode__exact=answer",
                                   "verification_mode__exact=strict", "o=7", "q=exemption"])
def test_the_session_list_filters_sorts_and_searches(staff, turn, query):
    response = staff.get(f"{CHANGELIST}?{query}")
    assert response.status_code == 200 and response.context["cl"].result_count == 1


def test_search_finds_words_of_the_answer(staff, turn):
    word = next(w for w in turn.answer_markdown.split() if w.isalpha() and len(w) > 6
                and w.lower() not in QUESTION.lower())
    assert staff.get(f"{CHANGELIST}?q={word}").context["cl"].result_count == 1
    assert staff.get(f"{CHANGELIST}?q=zzzunheardof").context["cl"].result_count == 0


def test_the_session_page_shows_turns_ledger_events_and_links_to_the_sources(staff, turn):
    response = staff.get(reverse("admin:ciq_sessions_researchsession_change", args=[turn.session_id]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="_save"' not in html
    assert turn.question in html
    assert "Intact: chain, turn seals and head file check out" in html
    claim = Claim.objects.filter(turn=turn).select_related("ledger__evidence").last()
    assert claim.ledger.verdict in html
    chunk = claim.ledger.evidence
    assert reverse("admin:retrieval_chunk_change", args=[chunk.pk]) in html
    assert reverse("admin:retrieval_document_change", args=[chunk.document_id]) in html
    assert html.count("generation_complete") >= 1 and "session_created" in html


def test_the_turn_page_lists_its_claims_with_verdicts(staff, turn):
    response = staff.get(reverse("admin:ciq_sessions_turn_change", args=[turn.pk]))
    assert response.status_code == 200
    verdicts = sorted(LedgerEntry.objects.filter(claim__turn=turn).values_list("verdict", flat=True))
    shown = re.findall(r'field-verdict">\s*<p>(\w+)</p>', response.content.decode())
    assert verdicts and sorted(shown) == verdicts


def test_the_chunk_page_links_to_its_document_and_the_document_to_its_chunks(staff, turn):
    chunk = LedgerEntry.objects.filter(claim__turn=turn).exclude(evidence=None).first().evidence
    page = staff.get(reverse("admin:retrieval_chunk_change", args=[chunk.pk])).content.decode()
    assert reverse("admin:retrieval_document_change", args=[chunk.document_id]) in page
    document = staff.get(reverse("admin:retrieval_document_change", args=[chunk.document_id]))
    chunks_url = reverse("admin:retrieval_chunk_changelist") + f"?document__id__exact={chunk.document_id}"
    assert chunks_url in document.content.decode()
    assert staff.get(chunks_url).context["cl"].result_count == chunk.document.chunks.count()


def test_the_verify_action_reports_an_intact_log(staff, turn):
    response = act(staff, "verify_event_log", turn.session)
    [message] = page_messages(response)
    assert message.startswith(f"Session {turn.session_id} “{turn.session}”: event log intact: chain, "
                              "turn seals and head file check out")


def test_an_edited_event_payload_is_reported(staff, turn):
    event = turn.session.events.get(seq=3)
    SessionEvent.objects.filter(pk=event.pk).update(payload={**event.payload, "forged": True})
    [message] = page_messages(act(staff, "verify_event_log", turn.session))
    assert "event log BROKEN" in message and "seq 3: hash mismatch" in message
    page = staff.get(reverse("admin:ciq_sessions_researchsession_change", args=[turn.session_id]))
    assert "Broken:" in page.content.decode()


def test_a_deleted_event_and_a_truncated_log_are_reported(staff, turn, demo_workspace):
    other = session_ask(workspace=demo_workspace, question="What are the standards for a dock?")
    turn.session.events.filter(seq=2).delete()
    last = other.session.events.order_by("-seq").first()
    other.session.events.filter(seq=last.seq).delete()
    messages = page_messages(act(staff, "verify_event_log", turn.session, other.session))
    assert "seq 3: expected seq 2 (gap or reorder)" in messages[0]
    assert f"seq {last.seq}: anchored hash missing or changed (log truncated or rewritten)" in messages[1]


def test_exporting_one_session_downloads_its_file(staff, turn):
    response = act(staff, "export_md", turn.session, follow=False)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/markdown")
    assert f'filename="ciq-session-{turn.session_id}.md"' in response["Content-Disposition"]
    assert ExportRecord.objects.get().format == "md"


def test_exporting_several_sessions_downloads_a_zip(staff, turn, demo_workspace):
    other = session_ask(workspace=demo_workspace, question="What are the standards for a dock?")
    response = act(staff, "export_json", turn.session, other.session, follow=False)
    assert response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert names == [f"ciq-session-{turn.session_id}.json", f"ciq-session-{other.session_id}.json"]
    assert ExportRecord.objects.count() == 2


AUDIT_MODELS = [("ciq_sessions", "sessionevent", SessionEvent), ("verification", "claim", Claim),
                ("verification", "ledgerentry", LedgerEntry), ("ciq_sessions", "turn", Turn),
                ("ciq_sessions", "researchsession", ResearchSession)]


@pytest.mark.parametrize(("app", "name", "model"), AUDIT_MODELS)
def test_audit_rows_can_be_seen_but_not_changed_added_or_deleted(staff, turn, app, name, model):
    row = model.objects.first()
    change = reverse(f"admin:{app}_{name}_change", args=[row.pk])
    page = staff.get(change)
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert staff.post(change, {"text": "edited"}).status_code == 403
    assert staff.get(reverse(f"admin:{app}_{name}_add")).status_code == 403
    delete = reverse(f"admin:{app}_{name}_delete", args=[row.pk])
    assert staff.post(delete, {"post": "yes"}).status_code == 403
    assert model.objects.filter(pk=row.pk).exists()


def test_bulk_delete_is_not_offered_for_sessions(staff, turn):
    response = act(staff, "delete_selected", turn.session)
    assert ResearchSession.objects.filter(pk=turn.session_id).exists()
    assert "delete_selected" not in dict(response.context["action_form"].fields["action"].choices)
