"""The audit review page in the admin (issue 14, item 3): a session as its user saw it —
the chain check first, then each turn's outcome, answer with numbered citations,
sources, confidences and compact ledger — scoped per firm and read-only; the session
list links to it and the change page points to it."""

import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils.html import escape

from ciq.services import membership_add
from sessions.models import ResearchSession, SessionEvent
from sessions.services import followup_start, session_ask
from tests import test_admin_audit as audit
from tests.test_admin_audit import CHANGELIST
from verification.models import LedgerEntry

pytestmark = pytest.mark.django_db

# The audit tests' fixtures: a real cited answer asked by the owner, and a superuser
# client who is no member of any workspace.
turn = audit.turn
staff = audit.staff


def review_url(session: ResearchSession) -> str:
    return reverse("admin:ciq_sessions_researchsession_review", args=[session.pk])


@pytest.fixture
def auditor(client, django_user_model, other_workspace):
    """Staff, no superuser, with every model permission, a member of "Other firm" only."""
    user = django_user_model.objects.create_user("auditor", password="pw-auditor-123", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="ciq_sessions"))
    membership_add(user=user, workspace=other_workspace)
    client.force_login(user)
    return client


def test_the_superuser_sees_another_users_session_with_numbered_citations(staff, turn, owner):
    assert turn.session.user == owner and "[cite:" in turn.answer_markdown
    response = staff.get(review_url(turn.session))
    html = response.content.decode()
    assert response.status_code == 200
    assert "[cite:" not in html
    assert turn.question in html
    assert re.search(r'<sup class="cite"><a href="#turn-1-source-1"[^>]*>\[1\]</a></sup>', html)
    assert 'id="turn-1-source-1"' in html
    # The citations point within the page, never at the workbench (404 for non-members).
    assert reverse("chunk", args=[turn.session_id, turn.sources[0]["chunk_id"]]) not in html


def test_the_review_shows_outcome_sources_confidences_and_the_ledger(staff, turn):
    html = staff.get(review_url(turn.session)).content.decode()
    assert re.search(r"<strong>Answered</strong>:\s+every part of the question is addressed", html)
    assert "12 CFR § 1006.1" in html  # a pinpoint of the sources list
    assert f"<strong>{turn.retrieval_confidence['level']}</strong>" in html
    assert f"<strong>{turn.claim_confidence['level'].capitalize()}</strong>" in html
    assert "Answer coverage" in html and "Evidence coverage" in html
    ledger = html.split('data-role="ledger"', 1)[1]
    entries = LedgerEntry.objects.filter(claim__turn=turn).select_related("claim")
    assert entries and all(escape(e.claim.text) in ledger for e in entries)
    assert ledger.count(">Supported<") == entries.filter(verdict="supported").count()
    assert 'href="#turn-1-source-1">[1]</a>' in ledger


def test_the_chain_check_comes_first_and_links_the_raw_event_log(staff, turn):
    html = staff.get(review_url(turn.session)).content.decode()
    check = html.index('data-role="chain-check"')
    assert check < html.index('data-role="answer"')
    assert "<strong>Intact</strong>: chain, turn seals and head file check out" in html
    events = reverse("admin:ciq_sessions_sessionevent_changelist") + f"?session__id__exact={turn.session_id}"
    assert f'href="{events}"' in html
    listed = staff.get(events).context["cl"]
    assert listed.result_count == turn.session.events.count()


def test_a_tampered_event_shows_broken_at_the_top(staff, turn):
    event = turn.session.events.get(seq=3)
    SessionEvent.objects.filter(pk=event.pk).update(payload={**event.payload, "forged": True})
    html = staff.get(review_url(turn.session)).content.decode()
    top = html[html.index('data-role="chain-check"'):html.index('data-role="answer"')]
    assert "<strong>Broken</strong>" in top and "seq 3: hash mismatch" in top


def test_a_staff_member_of_another_firm_gets_404(auditor, turn):
    assert auditor.get(review_url(turn.session)).status_code == 404


def test_a_staff_member_of_the_firm_sees_the_review(auditor, turn, other_workspace):
    mine = session_ask(workspace=other_workspace, question="What are the standards for a dock?")
    assert auditor.get(review_url(mine.session)).status_code == 200


def test_a_non_staff_user_is_sent_to_the_admin_login(client, owner, turn):
    client.force_login(owner)  # the session's own user, but not staff
    response = client.get(review_url(turn.session))
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))


def test_the_review_is_read_only(staff, turn):
    assert staff.post(review_url(turn.session), {"title": "edited"}).status_code == 405
    assert ResearchSession.objects.get(pk=turn.session_id).title == turn.session.title


def test_an_unknown_session_gets_404(staff, turn):
    assert staff.get(reverse("admin:ciq_sessions_researchsession_review", args=[10**6])).status_code == 404


def test_the_session_list_links_to_the_review_with_a_short_title(staff, turn, demo_workspace):
    long = session_ask(workspace=demo_workspace, question="What permits are needed to build or replace a "
                       "dock in Rivergrove, what are the standards for a dock, and who approves it?")
    html = staff.get(CHANGELIST).content.decode()
    assert f'href="{review_url(turn.session)}"' in html
    link = re.search(rf'<a href="{review_url(long.session)}" class="ciq-title" title="([^"]*)">([^<]*)</a>',
                     html)
    assert link and link.group(1) == escape(long.session.title)
    assert len(link.group(2)) <= 90 < len(long.session.title) and link.group(2).endswith("…")
    assert re.search(r'<td class="field-created_at"><span class="ciq-nowrap">\d{4}-\d\d-\d\d</span>', html)


def test_the_change_page_points_to_the_review_and_folds_the_raw_rows(staff, turn):
    change = reverse("admin:ciq_sessions_researchsession_change", args=[turn.session_id])
    html = staff.get(change).content.decode()
    pointer = html.index('data-role="review-pointer"')
    assert f'href="{review_url(turn.session)}"' in html[pointer - 400:pointer + 400]
    # Django renders a fieldset or inline with the "collapse" class as a closed <details>.
    assert html.count("<details") >= 3
    assert pointer < html.index("[cite:")


def test_the_review_of_two_turns_takes_a_bounded_number_of_queries(
        staff, turn, owner, django_assert_max_num_queries, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # the follow-up runs on commit
        followup_start(session=turn.session, question="Who may revoke the exemption?", user=owner)
    assert turn.session.turns.filter(status="completed").count() == 2
    with django_assert_max_num_queries(30):
        assert staff.get(review_url(turn.session)).status_code == 200
