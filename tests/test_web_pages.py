"""Web workbench pages: rendering, input errors, and "an outsider gets 404"."""

import datetime as dt

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from ciq.web.rendering import answer_html, highlighted
from sessions.models import EventType, RunStatus, SessionEvent, Turn
from sessions.recovery import turns_stalled_fail
from sessions.services import session_ask, session_create

DOCK_QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"


@pytest.fixture
def answered(demo_workspace, owner):
    """A completed session of the owner in Demo."""
    return session_ask(workspace=demo_workspace, user=owner, question=DOCK_QUESTION,
                       jurisdictions=["US-OR-Rivergrove"]).session


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


@pytest.fixture
def outsider_client(client, outsider):
    client.force_login(outsider)
    return client


def page_urls(session, document):
    ws = session.workspace_id
    chunk_id = session.turns.get().sources[0]["chunk_id"]
    return [
        reverse("ask", args=[ws]), reverse("documents", args=[ws]),
        reverse("document-status", args=[ws]), reverse("sessions", args=[ws]),
        reverse("document", args=[document.pk]), reverse("document-delete", args=[document.pk]),
        reverse("session", args=[session.pk]), reverse("turn", args=[session.pk, 1]),
        reverse("chunk", args=[session.pk, chunk_id]),
    ]


# --- access ---------------------------------------------------------------------------------

def test_every_page_requires_login(client, answered, demo_workspace):
    for url in page_urls(answered, demo_workspace.documents.first()) + [reverse("home")]:
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith("/login/"), url


def test_an_outsider_gets_404_on_every_page(outsider_client, answered, demo_workspace):
    for url in page_urls(answered, demo_workspace.documents.first()):
        assert outsider_client.get(url).status_code == 404, url
    session = answered
    assert outsider_client.post(reverse("followup", args=[session.pk]),
                                {"question": "More?"}).status_code == 404
    assert outsider_client.post(reverse("session-export", args=[session.pk, "md"])).status_code == 404
    document = demo_workspace.documents.first()
    assert outsider_client.post(reverse("document-delete", args=[document.pk])).status_code == 404
    assert demo_workspace.documents.filter(pk=document.pk).exists()
    assert outsider_client.post(reverse("workspace-switch"),
                                {"workspace": demo_workspace.pk}).status_code == 404


def test_a_member_sees_another_members_session(client, member, answered):
    client.force_login(member)
    assert client.get(reverse("session", args=[answered.pk])).status_code == 200


def test_login_page_logs_in_and_home_opens_the_workspace(client, owner, demo_workspace):
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "owner", "password": "pw-owner-123"})
    assert response.status_code == 302
    response = client.get(reverse("home"))
    assert response.url == reverse("ask", args=[demo_workspace.pk])
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("home")).status_code == 302


def test_home_without_a_workspace_says_so(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("lonely", password="x"))
    assert "not a member of any workspace" in client.get(reverse("home")).content.decode()


def test_switcher_lists_only_the_users_workspaces(owner_client, other_workspace, demo_workspace):
    html = owner_client.get(reverse("ask", args=[demo_workspace.pk])).content.decode()
    assert 'id="workspace-select"' in html and ">Demo</option>" in html
    assert other_workspace.name not in html


def test_switch_remembers_the_workspace(owner_client, owner, other_workspace, demo_workspace):
    from ciq.services import membership_add

    membership_add(user=owner, workspace=other_workspace)
    response = owner_client.post(reverse("workspace-switch"), {"workspace": other_workspace.pk})
    assert response.url == reverse("ask", args=[other_workspace.pk])
    assert owner_client.get(reverse("home")).url == reverse("ask", args=[other_workspace.pk])


# --- ask ------------------------------------------------------------------------------------

def test_ask_starts_a_session_and_opens_its_page(owner_client, demo_workspace,
                                                 django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(reverse("ask", args=[demo_workspace.pk]), {
            "question": DOCK_QUESTION, "mode": "answer", "verification_mode": "strict",
            "jurisdictions": "US-OR-Rivergrove",
        })
    turn = Turn.objects.get(session__workspace=demo_workspace, question=DOCK_QUESTION)
    assert response.url == reverse("session", args=[turn.session_id])
    assert turn.status == RunStatus.COMPLETED  # immediate backend in tests
    assert turn.session.jurisdictions == ["US-OR-Rivergrove"]


@pytest.mark.parametrize("data, message", [
    ({"question": "   "}, "The question is empty."),
    ({"question": "x" * 100_000}, "the limit is 4,000"),
    ({"question": "Docks?", "jurisdictions": "US-ZZ-Nowhere"}, "Unknown jurisdiction(s)"),
    ({"question": "Docks?", "jurisdictions": "bad code!"}, "Malformed jurisdiction"),
])
def test_ask_refuses_bad_input_and_keeps_it(owner_client, demo_workspace, data, message):
    form = {"mode": "draft", "verification_mode": "helpful", "jurisdictions": "", **data}
    response = owner_client.post(reverse("ask", args=[demo_workspace.pk]), form)
    html = response.content.decode()
    assert response.status_code == 400
    assert message in html
    assert 'value="draft" checked' in html.replace("\n", " ") or 'value="draft"' in html
    assert form["question"][:50] in html
    assert not Turn.objects.filter(session__workspace=demo_workspace).exists()


def test_ask_page_lists_known_jurisdictions(owner_client, demo_workspace):
    html = owner_client.get(reverse("ask", args=[demo_workspace.pk])).content.decode()
    assert "<code>US-OR-Rivergrove</code>" in html and "<code>US-OR</code>" in html


# --- session page ---------------------------------------------------------------------------

def test_session_page_shows_the_verified_turn(owner_client, answered):
    html = owner_client.get(reverse("session", args=[answered.pk])).content.decode()
    turn = answered.turns.get()
    assert 'data-status="completed"' in html
    assert 'class="cite"' in html and "[1]</a>" in html
    assert "Evidence ledger" in html and 'class="verdict verdict-supported"' in html
    assert "<meter" in html and "Retrieval:" in html and "Reasoning trace" in html
    assert "Planning action" in html and "Concluding" in html
    assert "kept of" in html  # retrieval lanes
    assert f'data-after="{answered.events.count()}"' in html
    for question in turn.suggested_followups:  # clickable: one form per suggestion
        assert f'name="question" value="{escape(question)}"' in html


def test_session_page_replays_an_unfinished_turn_from_its_first_event(owner_client, answered):
    last = answered.events.count()
    Turn.objects.create(session=answered, index=2, question="And the fees?")
    html = owner_client.get(reverse("session", args=[answered.pk])).content.decode()
    assert f'data-after="{last}"' in html
    assert 'data-turn="2" data-status="pending" data-live' in html


def test_answer_html_escapes_markup_and_links_citations():
    html = answer_html("<script>alert(1)</script> Docks need a permit [cite:abcdef012345].\n\n"
                       "[x](javascript:alert(1))", session_id=7)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="/sessions/7/chunks/abcdef012345/"' in html and ">[1]</a>" in html
    assert "javascript:" not in html.replace("javascript:alert(1))", "")


def test_highlighted_marks_snippets_and_escapes():
    html = highlighted("A <b>dock</b> needs  a permit.", ["needs a permit"])
    assert html == "A &lt;b&gt;dock&lt;/b&gt; <mark>needs  a permit</mark>."


def test_chunk_page_shows_document_page_and_highlighted_evidence(owner_client, answered):
    entry = answered.turns.get().claims.exclude(ledger__snippet="").first().ledger
    response = owner_client.get(reverse("chunk", args=[answered.pk, entry.evidence_chunk_id]))
    html = response.content.decode()
    assert response.status_code == 200
    assert entry.evidence.document.title in html and "<mark>" in html
    assert owner_client.get(reverse("chunk", args=[answered.pk, "000000000000"])).status_code == 404


def test_turn_fragment_renders_one_turn(owner_client, answered):
    html = owner_client.get(reverse("turn", args=[answered.pk, 1])).content.decode()
    assert html.lstrip().startswith("<article") and 'data-turn="1"' in html
    assert owner_client.get(reverse("turn", args=[answered.pk, 9])).status_code == 404


def test_followup_starts_a_second_turn(owner_client, answered, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(reverse("followup", args=[answered.pk]),
                                     {"question": "What fees apply to a dock permit?"})
    assert response.url == reverse("session", args=[answered.pk]) + "#turn-2"  # opens at the new turn
    second = answered.turns.get(index=2)
    assert second.status == RunStatus.COMPLETED


def test_followup_refuses_while_a_turn_runs_and_keeps_the_question(owner_client, answered):
    Turn.objects.create(session=answered, index=2, question="Still running")
    response = owner_client.post(reverse("followup", args=[answered.pk]), {"question": "Next one?"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "still running" in html and "Next one?" in html


def test_followup_refuses_an_empty_question(owner_client, answered):
    response = owner_client.post(reverse("followup", args=[answered.pk]), {"question": ""})
    assert response.status_code == 400 and "The question is empty." in response.content.decode()


def test_export_downloads_markdown(owner_client, answered):
    response = owner_client.post(reverse("session-export", args=[answered.pk, "md"]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="ciq-session-{answered.pk}.md"'
    assert owner_client.post(reverse("session-export", args=[answered.pk, "exe"])).status_code == 404


# --- history --------------------------------------------------------------------------------

def test_history_lists_the_users_sessions_and_searches(owner_client, answered, member, demo_workspace):
    session_create(workspace=demo_workspace, user=member, question="A member's own question")
    url = reverse("sessions", args=[demo_workspace.pk])
    html = owner_client.get(url).content.decode()
    assert DOCK_QUESTION in html and "A member&#x27;s own question" not in html
    assert "100%" in html or "%" in html  # coverage column
    assert DOCK_QUESTION in owner_client.get(url, {"q": "dock"}).content.decode()
    assert "No session matches" in owner_client.get(url, {"q": "zebra"}).content.decode()


def test_history_bounds_its_queries(owner_client, answered, demo_workspace, django_assert_max_num_queries):
    for _ in range(3):
        session_create(workspace=demo_workspace, user=answered.user, question="Another one")
    with django_assert_max_num_queries(12):
        owner_client.get(reverse("sessions", args=[demo_workspace.pk]))


# --- documents ------------------------------------------------------------------------------

def test_documents_list_shows_metadata_and_chunks(owner_client, demo_workspace):
    html = owner_client.get(reverse("documents", args=[demo_workspace.pk])).content.decode()
    assert "US-OR-Rivergrove" in html and "Ready" in html and 'data-role="chunks"' in html


def test_upload_creates_pending_documents_and_ingests(owner_client, other_workspace, owner,
                                                       samples_dir, django_capture_on_commit_callbacks):
    from ciq.services import membership_add

    membership_add(user=owner, workspace=other_workspace)
    path = samples_dir / "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md"
    upload = SimpleUploadedFile(path.name, path.read_bytes(), content_type="text/markdown")
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(reverse("documents", args=[other_workspace.pk]), {
            "files": [upload], "jurisdiction": "US-OR-Rivergrove", "jurisdiction_level": "municipal",
            "source_type": "ordinance", "citation_label": "Ord. 88", "last_updated": "2017-05-01",
        })
    assert response.status_code == 302
    document = other_workspace.documents.get()
    assert document.status == "ready" and document.citation_label == "Ord. 88"
    assert document.last_updated == dt.date(2017, 5, 1) and document.chunks.exists()
    status = owner_client.get(reverse("document-status", args=[other_workspace.pk])).json()
    assert status["pending"] == 0 and status["documents"][0]["status"] == "ready"


def test_upload_lists_bad_files_and_keeps_the_metadata(owner_client, demo_workspace):
    files = [SimpleUploadedFile("virus.exe", b"MZ"), SimpleUploadedFile("empty.txt", b"")]
    response = owner_client.post(reverse("documents", args=[demo_workspace.pk]), {
        "files": files, "jurisdiction": "US-OR", "jurisdiction_level": "state",
        "citation_label": "Keep me",
    })
    html = response.content.decode()
    assert response.status_code == 400
    assert "virus.exe: unsupported file type" in html and "empty.txt: the file is empty." in html
    assert 'value="Keep me"' in html


def test_upload_without_files_asks_for_one(owner_client, demo_workspace):
    response = owner_client.post(reverse("documents", args=[demo_workspace.pk]),
                                 {"jurisdiction_level": "private"})
    assert response.status_code == 400 and "Choose at least one file." in response.content.decode()


def test_document_page_lists_chunks_with_ids_and_pages(owner_client, demo_workspace):
    document = demo_workspace.documents.filter(page_count__gt=0).first()
    html = owner_client.get(reverse("document", args=[document.pk])).content.decode()
    chunk = document.chunks.first()
    assert f'id="chunk-{chunk.chunk_id}"' in html and chunk.pages in html


def test_delete_asks_then_deletes(owner_client, demo_workspace):
    document = demo_workspace.documents.first()
    url = reverse("document-delete", args=[document.pk])
    assert "Delete “" in owner_client.get(url).content.decode()
    assert owner_client.post(url).status_code == 302
    assert not demo_workspace.documents.filter(pk=document.pk).exists()


# --- recovery -------------------------------------------------------------------------------

def test_a_stalled_turn_ends_in_error_with_an_event(demo_workspace, owner):
    turn = session_create(workspace=demo_workspace, user=owner, question="Docks?")
    session = turn.session
    assert turns_stalled_fail(session=session) == []  # fresh: not stalled
    later = timezone.now() + dt.timedelta(minutes=11)
    assert [t.pk for t in turns_stalled_fail(session=session, now=later)] == [turn.pk]
    turn.refresh_from_db()
    session.refresh_from_db()
    assert turn.status == session.status == RunStatus.ERROR
    events = SessionEvent.objects.filter(session=session).order_by("-seq")
    seal, event = events[0], events[1]
    assert event.type == EventType.ERROR and event.payload["code"] == "stalled"
    assert seal.type == EventType.TURN_SEALED and turn.log_seq == seal.seq == event.seq + 1
    assert turns_stalled_fail(session=session, now=later) == []  # once only


def test_reading_a_session_page_changes_no_turn(owner_client, demo_workspace, owner):
    """Recovery is a periodic job (``manage.py recover``, tests/test_recovery.py), never a
    side effect of a page read."""
    turn = session_create(workspace=demo_workspace, user=owner, question="Docks?")
    Turn.objects.filter(pk=turn.pk).update(created=timezone.now() - dt.timedelta(hours=1))
    SessionEvent.objects.filter(session=turn.session).update(
        created=timezone.now() - dt.timedelta(hours=1))
    html = owner_client.get(reverse("session", args=[turn.session_id])).content.decode()
    assert 'data-status="pending"' in html
    turn.refresh_from_db()
    assert turn.status == RunStatus.PENDING
