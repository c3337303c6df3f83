"""The session websocket (``ws/sessions/<id>/``): auth, membership, origin, replay,
live events, follow-ups over the socket, the tail of another process's events and the
error path."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from ciq.asgi import application
from ciq.web.consumers import CLOSE_FORBIDDEN, CLOSE_NOT_FOUND, CLOSE_UNAUTHENTICATED
from sessions.events import EventLog
from sessions.models import EventType, RunStatus, Turn

pytestmark = pytest.mark.django_db(transaction=True)

DOCS = [
    "municipal/us-or-rivergrove/ordinances/2017-Ord-88-2017-Docks.md",
    "municipal/us-or-rivergrove/ordinances/1989-Ord-54-89C-Land-Development.md",
]
QUESTION = "What permits are needed to build or replace a dock in Rivergrove?"


@pytest.fixture
def world(django_user_model):
    """A workspace with two sample documents, a member with a completed session, and
    an outsider in another workspace (transactional tests do not see conftest's Demo)."""
    from ciq.services import membership_add, workspace_get_or_create
    from retrieval.services import documents_ingest
    from sessions.services import session_ask

    firm = workspace_get_or_create(name="Firm")
    documents_ingest(workspace=firm, paths=[settings.BASE_DIR / "samples" / p for p in DOCS])
    member = django_user_model.objects.create_user("member", password="pw-member-123")
    membership_add(user=member, workspace=firm)
    outsider = django_user_model.objects.create_user("outsider", password="pw-outsider-123")
    membership_add(user=outsider, workspace=workspace_get_or_create(name="Elsewhere"))
    colleague = django_user_model.objects.create_user("colleague", password="pw-colleague-123")
    membership_add(user=colleague, workspace=firm)
    turn = session_ask(workspace=firm, user=member, question=QUESTION)
    assert turn.status == RunStatus.COMPLETED
    return {"session": turn.session, "member": member, "outsider": outsider, "colleague": colleague}


def cookie_for(user, client=None) -> bytes:
    client = client or Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def open_socket(session_id, user=None, after=None, origin=b"http://localhost", client=None,
                      host=b"localhost"):
    headers = [(b"origin", origin), (b"host", host)]
    if user is not None:
        headers.append((b"cookie", await sync_to_async(cookie_for)(user, client)))
    path = f"/ws/sessions/{session_id}/" + (f"?after={after}" if after is not None else "")
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def receive_until(communicator, stop_type, timeout=10):
    messages = []
    while True:
        message = await communicator.receive_json_from(timeout=timeout)
        messages.append(message)
        if message.get("type") == stop_type:
            return messages


async def closed_with(communicator) -> int:
    output = await communicator.receive_output(timeout=2)
    assert output["type"] == "websocket.close"
    return output["code"]


async def test_an_anonymous_client_is_closed_with_4401(world):
    communicator, connected = await open_socket(world["session"].pk)
    assert connected
    assert await closed_with(communicator) == CLOSE_UNAUTHENTICATED


async def test_another_workspaces_session_and_a_missing_one_look_the_same(world):
    for session_id in (world["session"].pk, 999_999):
        communicator, _ = await open_socket(session_id, user=world["outsider"])
        assert await closed_with(communicator) == CLOSE_NOT_FOUND


async def test_a_foreign_origin_is_refused(world):
    communicator, connected = await open_socket(world["session"].pk, user=world["member"],
                                                origin=b"http://evil.example")
    assert not connected
    await communicator.disconnect()


@pytest.mark.parametrize(("origin", "host"), [
    (b"http://localhost:5555", b"localhost:8000"),  # another program on the same machine
    (b"http://localhost", b"localhost:8000"),
    (b"http://evil.example:8000", b"evil.example:8000"),  # not in ALLOWED_HOSTS
    (b"null", b"localhost:8000"),
])
async def test_an_origin_of_another_port_or_host_is_refused(world, origin, host):
    communicator, connected = await open_socket(world["session"].pk, user=world["member"],
                                                origin=origin, host=host)
    assert not connected
    await communicator.disconnect()


async def test_the_sites_own_origin_with_its_port_is_accepted(world):
    communicator, connected = await open_socket(world["session"].pk, user=world["member"], after=10_000,
                                                origin=b"http://127.0.0.1:8000", host=b"127.0.0.1:8000")
    assert connected
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def test_replay_sends_every_stored_event_after_seq_in_order(world):
    session = world["session"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=world["member"], after=5)
    messages = await receive_until(communicator, "turn_sealed")  # the last stored event
    assert [m["seq"] for m in messages] == list(range(6, total + 1))
    assert {"type", "session", "seq", "ts"} <= messages[0].keys()
    assert messages[0]["session"] == session.pk
    assert await communicator.receive_nothing(timeout=0.3)
    await communicator.disconnect()


async def test_live_events_follow_the_replay_without_duplicates(world):
    session = world["session"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=world["member"], after=total - 1)
    assert (await communicator.receive_json_from())["seq"] == total

    def emit():
        return EventLog(session).emit(EventType.REASONING_THOUGHT, text="live", turn=1).seq

    seq = await sync_to_async(emit)()
    message = await communicator.receive_json_from(timeout=3)
    assert message["seq"] == seq == total + 1 and message["text"] == "live"
    assert await communicator.receive_nothing(timeout=0.6)  # the tail does not resend it
    await communicator.disconnect()


async def test_events_stored_by_another_process_arrive_through_the_tail(world, monkeypatch):
    session = world["session"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=world["member"], after=total)
    # Another process's in-memory layer: nothing is published to this one.
    monkeypatch.setattr("sessions.events.event_publish", lambda message: None)

    def emit():
        EventLog(session).emit(EventType.REASONING_THOUGHT, text="from the worker", turn=1)

    await sync_to_async(emit)()
    message = await communicator.receive_json_from(timeout=3)
    assert message["seq"] == total + 1 and message["text"] == "from the worker"
    await communicator.disconnect()


async def test_a_gap_in_live_messages_is_filled_from_the_log(world):
    from channels.layers import get_channel_layer

    from sessions.events import event_message, session_group

    session = world["session"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=world["member"], after=total)

    def emit_two():
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("sessions.events.event_publish", lambda message: None)
            log = EventLog(session)
            log.emit(EventType.REASONING_THOUGHT, text="first", turn=1)
            return event_message(log.emit(EventType.REASONING_THOUGHT, text="second", turn=1))

    second = await sync_to_async(emit_two)()
    await get_channel_layer().group_send(session_group(session.pk),
                                         {"type": "session.event", "message": second})
    seqs = [(await communicator.receive_json_from(timeout=3))["seq"] for _ in range(2)]
    assert seqs == [total + 1, total + 2]
    await communicator.disconnect()


async def test_ask_starts_a_follow_up_and_streams_it(world):
    session = world["session"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=world["member"], after=total)
    await communicator.send_json_to({"type": "ask", "question": "What fees apply to a dock?"})
    messages = await receive_until(communicator, "generation_complete")
    assert messages[0] == {"type": "ask_accepted", "turn": 2, "question": "What fees apply to a dock?"}
    events = messages[1:]
    assert [m["seq"] for m in events] == list(range(total + 1, total + 1 + len(events)))
    assert {m["turn"] for m in events} == {2}
    assert "content_chunk" in {m["type"] for m in events}
    await communicator.disconnect()


async def test_ask_with_a_bad_question_is_rejected(world):
    communicator, _ = await open_socket(world["session"].pk, user=world["member"], after=10_000)
    await communicator.send_json_to({"type": "ask", "question": "x" * 100_000})
    reply = await communicator.receive_json_from()
    assert reply["type"] == "ask_rejected" and "the limit is" in reply["errors"]["question"][0]
    await communicator.send_json_to({"type": "hello"})
    assert (await communicator.receive_json_from())["type"] == "ask_rejected"
    assert await sync_to_async(world["session"].turns.count)() == 1
    await communicator.disconnect()


async def test_a_failing_run_ends_with_an_error_event_and_keeps_what_was_done(world, monkeypatch):
    session = world["session"]
    total = await sync_to_async(session.events.count)()

    class Broken:
        def stream(self, request):
            yield "Half an answer "
            raise RuntimeError("model unavailable")

    import sessions.pipeline

    real = sessions.pipeline.role_backend
    monkeypatch.setattr(sessions.pipeline, "role_backend",
                        lambda role: Broken() if role == "writer" else real(role))
    communicator, _ = await open_socket(session.pk, user=world["member"], after=total)
    await communicator.send_json_to({"type": "ask", "question": "What about boathouses?"})
    messages = await receive_until(communicator, "error")
    types = [m["type"] for m in messages]
    assert "content_chunk" in types and types[-1] == "error"
    assert messages[-1]["code"] == "internal_error" and messages[-1]["turn"] == 2
    turn = await sync_to_async(Turn.objects.get)(session=session, index=2)
    assert turn.status == RunStatus.ERROR
    await communicator.disconnect()


async def test_a_disconnected_client_catches_up_on_reconnect(world):
    session = world["session"]
    communicator, _ = await open_socket(session.pk, user=world["member"], after=0)
    first = [await communicator.receive_json_from() for _ in range(3)]
    await communicator.disconnect()
    await asyncio.sleep(0)
    again, _ = await open_socket(session.pk, user=world["member"], after=first[-1]["seq"])
    rest = await receive_until(again, "turn_sealed")
    total = await sync_to_async(session.events.count)()
    assert [m["seq"] for m in first + rest] == list(range(1, total + 1))
    await again.disconnect()


async def test_concurrent_connects_share_one_tail_and_get_each_event_once(world, monkeypatch):
    from ciq.web.tail import SessionTail

    session = world["session"]
    total = await sync_to_async(session.events.count)()
    opened = await asyncio.gather(*(open_socket(session.pk, user=world["member"], after=total - 1)
                                    for _ in range(5)))
    for communicator, _ in opened:  # the replay comes after the consumer joined the tail
        assert (await communicator.receive_json_from())["seq"] == total
    assert SessionTail._running[session.pk].watchers == 5
    monkeypatch.setattr("sessions.events.event_publish", lambda message: None)
    await sync_to_async(lambda: EventLog(session).emit(EventType.REASONING_THOUGHT, text="x", turn=1))()
    for communicator, _ in opened:
        assert (await communicator.receive_json_from(timeout=3))["seq"] == total + 1
    for communicator, _ in opened:
        assert await communicator.receive_nothing(timeout=0.4)
    for communicator, _ in opened:
        await communicator.disconnect()
    assert session.pk not in SessionTail._running


# --- Sockets follow membership and login (issue 11, item 2) ---------------------------


def colleague_asks(session, colleague, question="What fees apply to a dock?"):
    """A colleague starts the next turn; the immediate backend runs it on commit."""
    from sessions.services import followup_start

    return followup_start(session=session, question=question).index


def membership_remove(user, session):
    from ciq.models import Membership

    Membership.objects.filter(user=user, workspace=session.workspace).delete()


async def test_a_removed_member_gets_no_event_of_the_next_turn(world):
    session, member = world["session"], world["member"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=member, after=total)
    await sync_to_async(membership_remove)(member, session)
    turn = await sync_to_async(colleague_asks)(session, world["colleague"])
    assert turn == 2 and await sync_to_async(session.events.count)() > total
    # The very next output is the close: not one event of turn 2 went out first.
    assert await closed_with(communicator) == CLOSE_FORBIDDEN
    await communicator.disconnect()


async def test_an_ask_from_a_removed_member_is_refused(world):
    session, member = world["session"], world["member"]
    communicator, _ = await open_socket(session.pk, user=member, after=10_000)
    await sync_to_async(membership_remove)(member, session)
    await communicator.send_json_to({"type": "ask", "question": "What fees apply to a dock?"})
    assert await closed_with(communicator) == CLOSE_FORBIDDEN
    assert await sync_to_async(session.turns.count)() == 1
    await communicator.disconnect()


async def test_a_socket_is_closed_once_its_login_is_logged_out(world):
    session, member = world["session"], world["member"]
    browser = Client()
    communicator, _ = await open_socket(session.pk, user=member, after=10_000, client=browser)
    await sync_to_async(browser.post)("/logout/")
    await communicator.send_json_to({"type": "ask", "question": "What fees apply to a dock?"})
    assert await closed_with(communicator) == CLOSE_FORBIDDEN
    assert await sync_to_async(session.turns.count)() == 1
    await communicator.disconnect()


async def test_a_deactivated_user_gets_no_event_of_the_next_turn(world):
    session, member = world["session"], world["member"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=member, after=total)
    member.is_active = False
    await sync_to_async(member.save)()
    await sync_to_async(colleague_asks)(session, world["colleague"])
    assert await closed_with(communicator) == CLOSE_FORBIDDEN
    await communicator.disconnect()


async def test_a_password_change_ends_the_socket(world):
    session, member = world["session"], world["member"]
    communicator, _ = await open_socket(session.pk, user=member, after=10_000)

    def change():
        member.set_password("a-new-password-456")
        member.save()

    await sync_to_async(change)()
    await communicator.send_json_to({"type": "ask", "question": "What fees apply to a dock?"})
    assert await closed_with(communicator) == CLOSE_FORBIDDEN
    await communicator.disconnect()


async def test_a_member_still_in_the_workspace_keeps_streaming_the_next_turn(world):
    session, member = world["session"], world["member"]
    total = await sync_to_async(session.events.count)()
    communicator, _ = await open_socket(session.pk, user=member, after=total)
    await sync_to_async(colleague_asks)(session, world["colleague"])
    messages = await receive_until(communicator, "generation_complete")
    assert {m["turn"] for m in messages} == {2}
    await communicator.disconnect()


async def test_a_viewer_watches_but_cannot_ask_and_a_colleagues_follow_up_is_theirs(world, django_user_model):
    from ciq.models import Membership
    from ciq.services import membership_add

    session = world["session"]
    viewer = await sync_to_async(django_user_model.objects.create_user)("viewer", password="pw-viewer-123")
    await sync_to_async(lambda: membership_add(user=viewer, workspace=session.workspace,
                                               role=Membership.Role.VIEWER))()
    communicator, connected = await open_socket(session.pk, user=viewer, after=10_000)
    assert connected
    await communicator.send_json_to({"type": "ask", "question": "What fees apply to a dock?"})
    reply = await communicator.receive_json_from()
    assert reply["type"] == "ask_rejected" and "(viewer)" in reply["errors"]["role"][0]
    assert await sync_to_async(session.turns.count)() == 1
    await communicator.disconnect()

    communicator, _ = await open_socket(session.pk, user=world["colleague"], after=10_000)
    await communicator.send_json_to({"type": "ask", "question": "What fees apply to a dock?"})
    assert (await communicator.receive_json_from())["type"] == "ask_accepted"
    await communicator.disconnect()
    turn = await sync_to_async(session.turns.select_related("asked_by").get)(index=2)
    assert turn.asked_by == world["colleague"]
