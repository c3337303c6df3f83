"""Sessions through the API: create, run, read, follow up; every boundary answers 404."""

import pytest

from sessions.models import ResearchSession
from tests.api_support import QUESTION, session_run, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(owner):
    return token_client(owner)


def test_creating_a_session_answers_201_with_its_websocket_and_runs_it(
        api, demo_workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/sessions/", {
            "workspace": demo_workspace.pk, "query": QUESTION, "mode": "answer",
            "verification_mode": "strict", "jurisdictions": ["US"],
        }, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "pending"
    assert body["websocket_url"] == f"ws://testserver/ws/sessions/{body['id']}/"
    assert body["turn"] == {"index": 1, "question": QUESTION, "status": "pending"}
    assert response["Location"].endswith(f"/api/v1/sessions/{body['id']}/")
    session = ResearchSession.objects.get(pk=body["id"])
    assert session.status == "completed" and session.jurisdictions == ["US"]


def test_the_detail_has_answer_ledger_metrics_and_confidences(
        api, demo_workspace, django_capture_on_commit_callbacks):
    created = session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    response = api.get(f"/api/v1/sessions/{created['id']}/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "completed" and body["turn_count"] == 1
    assert body["user"] == "owner" and body["workspace_name"] == "Demo"
    turn = body["turns"][0]
    assert "[cite:" in turn["answer_markdown"]
    assert turn["ledger"] and {row["verdict"] for row in turn["ledger"]} <= {
        "supported", "weak", "not_found", "contradicted"}
    assert turn["metrics"]["evidence_coverage"] > 0.5
    assert turn["retrieval_confidence"]["level"] in {"High", "Medium", "Low"}
    assert turn["claim_confidence"]["claims"] == len(turn["ledger"])
    assert turn["citations"][0]["number"] == 1


def test_the_list_shows_the_workspace_sessions_and_filters_them(
        api, member, demo_workspace, django_capture_on_commit_callbacks, django_assert_max_num_queries):
    session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    draft = session_run(token_client(member), django_capture_on_commit_callbacks, demo_workspace,
                        mode="draft", query="Draft a memo on tree removal permits in Rivergrove.")
    with django_assert_max_num_queries(3):
        response = api.get("/api/v1/sessions/")
    body = response.json()
    assert body["count"] == 2 and {s["user"] for s in body["results"]} == {"owner", "member"}
    assert [s["id"] for s in api.get("/api/v1/sessions/?mode=draft").json()["results"]] == [draft["id"]]
    assert api.get("/api/v1/sessions/?status=error").json()["count"] == 0
    assert api.get("/api/v1/sessions/?status=completed&created_after=2000-01-01").json()["count"] == 2
    assert api.get("/api/v1/sessions/?created_before=2000-01-01").json()["count"] == 0
    assert api.get(f"/api/v1/sessions/?workspace={demo_workspace.pk}").json()["count"] == 2


def test_list_filters_refuse_unknown_values_with_field_messages(api, other_workspace):
    response = api.get(f"/api/v1/sessions/?mode=poem&created_after=yesterday&workspace={other_workspace.pk}")
    assert response.status_code == 400
    assert set(response.json()) == {"mode", "created_after", "workspace"}


def test_the_list_is_paginated(api, demo_workspace, django_capture_on_commit_callbacks):
    for _ in range(3):
        session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    page = api.get("/api/v1/sessions/?page_size=2").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
    assert len(api.get(page["next"]).json()["results"]) == 1


@pytest.mark.parametrize(("body", "field", "message"), [
    ({"mode": "poem"}, "mode", "Unknown mode “poem”: use answer or draft."),
    ({"verification_mode": "lenient"}, "verification_mode", "Unknown verification mode"),
    ({"query": "   "}, "query", "The question is empty."),
    ({"query": "x" * 100_000}, "query", "The question is 100,000 characters long; the limit is 4,000."),
    ({"jurisdictions": ["US-ZZ"]}, "jurisdictions", "Unknown jurisdiction(s) in workspace “Demo”: US-ZZ."),
    ({"jurisdictions": ["not a code"]}, "jurisdictions", "Malformed jurisdiction code(s)"),
    ({"workspace": "abc"}, "workspace", "Incorrect type"),
])
def test_bad_input_gets_400_with_a_field_message_and_stores_nothing(
        api, demo_workspace, body, field, message):
    response = api.post("/api/v1/sessions/", {"workspace": demo_workspace.pk, "query": QUESTION, **body},
                        format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field]
    assert message in response.json()[field][0]
    assert not ResearchSession.objects.exists()


def test_a_workspace_of_others_is_refused_like_one_that_does_not_exist(api, other_workspace):
    theirs = api.post("/api/v1/sessions/", {"workspace": other_workspace.pk, "query": QUESTION},
                      format="json")
    missing = api.post("/api/v1/sessions/", {"workspace": 99999, "query": QUESTION}, format="json")
    assert theirs.status_code == missing.status_code == 400
    assert theirs.json()["workspace"][0].replace(str(other_workspace.pk), "N") == \
        missing.json()["workspace"][0].replace("99999", "N")
    assert not ResearchSession.objects.exists()


def test_a_body_over_the_upload_limit_is_refused_with_413(api, demo_workspace, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 50_000
    response = api.post("/api/v1/sessions/", {"workspace": demo_workspace.pk, "query": "x" * 60_000},
                        format="json")
    assert response.status_code == 413
    assert "the limit of 50,000 bytes" in response.json()["detail"]


def test_a_follow_up_turn_runs_in_the_same_session(api, demo_workspace, django_capture_on_commit_callbacks):
    created = session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/v1/sessions/{created['id']}/turns/",
                            {"query": "Where is the application filed?"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["turn"]["index"] == 2 and response.json()["id"] == created["id"]
    turns = api.get(f"/api/v1/sessions/{created['id']}/").json()["turns"]
    assert [t["turn"] for t in turns] == [1, 2] and turns[1]["status"] == "completed"


def test_a_follow_up_waits_for_the_running_turn(api, demo_workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # the first run never starts
        created = api.post("/api/v1/sessions/", {"workspace": demo_workspace.pk, "query": QUESTION},
                           format="json").json()
    response = api.post(f"/api/v1/sessions/{created['id']}/turns/", {"query": "And then?"}, format="json")
    assert response.status_code == 409


def test_a_follow_up_question_is_checked(api, demo_workspace, django_capture_on_commit_callbacks):
    created = session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    response = api.post(f"/api/v1/sessions/{created['id']}/turns/", {"query": ""}, format="json")
    assert response.status_code == 400 and response.json() == {"query": ["The question is empty."]}


def test_events_replay_after_a_seq_in_pages(api, demo_workspace, django_capture_on_commit_callbacks):
    created = session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    url = f"/api/v1/sessions/{created['id']}/events/"
    everything = api.get(url, {"limit": 1000}).json()
    seqs = [e["seq"] for e in everything["events"]]
    assert seqs == list(range(1, len(seqs) + 1)) and not everything["has_more"]
    assert everything["events"][0]["type"] == "session_created"
    assert [e["type"] for e in everything["events"][-2:]] == ["generation_complete", "turn_sealed"]
    assert set(everything["events"][0]) >= {"type", "session", "seq", "ts"}
    page = api.get(url, {"after": 3, "limit": 5}).json()
    assert [e["seq"] for e in page["events"]] == [4, 5, 6, 7, 8]
    assert page["last_seq"] == 8 and page["has_more"]
    tail = api.get(url, {"after": seqs[-1]}).json()
    assert tail["events"] == [] and tail["last_seq"] == seqs[-1] and not tail["has_more"]
    assert api.get(url, {"after": -1}).status_code == 400


def test_the_ledger_endpoint_gives_a_turn_ledger(api, demo_workspace, django_capture_on_commit_callbacks):
    created = session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    url = f"/api/v1/sessions/{created['id']}/ledger/"
    ledger = api.get(url).json()
    assert ledger["session"] == created["id"] and ledger["turn"] == 1
    assert ledger["ledger"][0]["verdict"] and ledger["ledger"][0]["cited_chunk_ids"]
    assert ledger["claim_confidence"]["claims"] == len(ledger["ledger"])
    assert api.get(url, {"turn": 1}).json() == ledger
    assert api.get(url, {"turn": 2}).status_code == 404


def test_the_websocket_url_is_wss_behind_tls(api, demo_workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/sessions/", {"workspace": demo_workspace.pk, "query": QUESTION},
                            format="json", secure=True)
    assert response.json()["websocket_url"].startswith("wss://testserver/ws/sessions/")


@pytest.mark.parametrize("suffix", ["", "turns/", "events/", "ledger/", "export/?format=md"])
def test_an_outsider_gets_404_for_every_session_endpoint(
        api, outsider, demo_workspace, django_capture_on_commit_callbacks, suffix):
    created = session_run(api, django_capture_on_commit_callbacks, demo_workspace)
    stranger = token_client(outsider)
    url = f"/api/v1/sessions/{created['id']}/{suffix}"
    response = stranger.post(url, {"query": "Mine now?"}, format="json") if suffix == "turns/" else \
        stranger.get(url)
    assert response.status_code == 404
    assert stranger.get("/api/v1/sessions/").json()["count"] == 0
    assert ResearchSession.objects.get(pk=created["id"]).turns.count() == 1
