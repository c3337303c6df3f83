"""The home (Ask) page's recent sessions and example questions, and the session
history's Turns column (issue 14, "Sessions search" and home page findings)."""

import re
from html import unescape

import pytest
from django.urls import reverse

from sessions.models import Outcome, ResearchSession, Turn
from sessions.services import session_ask, session_create

pytestmark = pytest.mark.django_db

DOCK_QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def two_turn_session(workspace, user, first: str, second: str) -> ResearchSession:
    session = session_create(workspace=workspace, user=user, question=first).session
    Turn.objects.create(session=session, index=2, question=second)
    return session


def turns_cell(html: str, session: ResearchSession) -> int:
    row = html.split(f'href="{reverse("session", args=[session.pk])}"', 1)[1].split("</tr>", 1)[0]
    return int(re.search(r'<td class="num" data-role="turns">(\d+)</td>', row).group(1))


# --- the session history --------------------------------------------------------------

def test_a_search_counts_every_turn_of_a_listed_session(owner_client, owner, demo_workspace):
    session = two_turn_session(demo_workspace, owner, "What permits does a dock need?",
                               "What fees apply to a sewer connection?")
    url = reverse("sessions", args=[demo_workspace.pk])
    assert turns_cell(owner_client.get(url).content.decode(), session) == 2
    assert turns_cell(owner_client.get(url, {"q": "sewer"}).content.decode(), session) == 2
    # Matching the title and a question lists the session once.
    html = owner_client.get(url, {"q": "dock"}).content.decode()
    assert turns_cell(html, session) == 2
    assert html.count(f'href="{reverse("session", args=[session.pk])}"') == 1


def test_a_search_bounds_its_queries(owner_client, owner, demo_workspace, django_assert_max_num_queries):
    for n in range(4):
        two_turn_session(demo_workspace, owner, f"Dock question {n}", f"Dock follow-up {n}")
    with django_assert_max_num_queries(12):
        owner_client.get(reverse("sessions", args=[demo_workspace.pk]), {"q": "dock"})


# --- the home page ----------------------------------------------------------------------

def test_the_home_page_lists_the_users_recent_sessions_with_their_outcome(
        owner_client, owner, member, demo_workspace, other_workspace):
    from ciq.services import membership_add

    turn = session_ask(workspace=demo_workspace, user=owner, question=DOCK_QUESTION,
                       jurisdictions=["US-OR-Rivergrove"])
    pending = session_create(workspace=demo_workspace, user=owner, question="A question still queued").session
    session_create(workspace=demo_workspace, user=member, question="A member's own question")
    membership_add(user=owner, workspace=other_workspace)
    session_create(workspace=other_workspace, user=owner, question="Asked in the other firm")
    html = owner_client.get(reverse("ask", args=[demo_workspace.pk])).content.decode()
    recent = html.split('data-role="recent-sessions"', 1)[1].split("</section>", 1)[0]
    assert reverse("session", args=[turn.session_id]) in recent
    assert reverse("session", args=[pending.pk]) in recent
    assert recent.index(f'data-session="{pending.pk}"') < recent.index(f'data-session="{turn.session_id}"')
    assert f'data-role="outcome">{Outcome(turn.outcome).label}<' in recent
    assert "member&#x27;s own question" not in recent and "other firm" not in recent


def test_the_home_page_bounds_its_queries(owner_client, owner, demo_workspace, django_assert_max_num_queries):
    for n in range(6):
        two_turn_session(demo_workspace, owner, f"Question {n}", f"Follow-up {n}")
    with django_assert_max_num_queries(14):
        html = owner_client.get(reverse("ask", args=[demo_workspace.pk])).content.decode()
    assert html.count("<li data-session=") == 5


def test_example_questions_come_from_the_workspaces_documents(owner_client, demo_workspace):
    html = owner_client.get(reverse("ask", args=[demo_workspace.pk])).content.decode()
    examples = html.split('data-role="examples"', 1)[1].split("</section>", 1)[0]
    questions = re.findall(r'data-example-question="([^"]+)"', examples)
    assert 1 <= len(questions) <= 3
    titles = set(demo_workspace.documents.values_list("title", flat=True))
    about = re.findall(r'title="About: ([^"]+)"', examples)
    assert len(about) == len(questions) and all(unescape(t) in titles for t in about)
    assert 'data-example-jurisdiction="US-OR-Rivergrove"' in examples
    assert "What does Rivergrove Ord. No. " in examples  # an ordinance named by its citation


def test_a_workspace_without_documents_offers_no_example(client, outsider, other_workspace):
    client.force_login(outsider)
    html = client.get(reverse("ask", args=[other_workspace.pk])).content.decode()
    assert "data-example-question" not in html and "No documents are ready" in html
    assert "No sessions of yours in this workspace yet." in html


def test_an_outsider_gets_404_on_the_home_page_of_a_workspace_not_theirs(client, outsider, demo_workspace):
    client.force_login(outsider)
    assert client.get(reverse("ask", args=[demo_workspace.pk])).status_code == 404
