"""The home (Ask) page's recent sessions and example questions, and the session
history's Turns column (issue 14, "Sessions search" and home page findings)."""

import re

import pytest
from django.urls import reverse

from sessions.models import ResearchSession, Turn
from sessions.services import session_create

pytestmark = pytest.mark.django_db


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
