"""Stored events reach the session's channel-layer group once committed: in memory (one
process) and through a real Redis server (separate worker and web processes)."""

import shutil
import socket
import subprocess
import time

import pytest
from asgiref.sync import async_to_sync
from channels.layers import channel_layers, get_channel_layer
from django.test import override_settings

from sessions.events import EventLog, session_group
from sessions.models import EventType
from sessions.services import session_create


def _receive_all(layer, channel, count):
    async def receive():
        return [await layer.receive(channel) for _ in range(count)]
    return async_to_sync(receive)()


def _published(workspace, django_capture_on_commit_callbacks):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        turn = session_create(workspace=workspace, question="What is a dock permit?")
    session = turn.session
    async_to_sync(layer.group_add)(session_group(session.pk), channel)
    with django_capture_on_commit_callbacks(execute=True):
        EventLog(session).emit(EventType.REASONING_THOUGHT, stage="plan", text="Planning", turn=1)
    for callback in callbacks:  # session_created, published late on purpose
        callback()
    messages = _receive_all(layer, channel, 2)
    return session, messages


def test_events_publish_on_commit_in_order_of_commit(demo_workspace, django_capture_on_commit_callbacks):
    session, messages = _published(demo_workspace, django_capture_on_commit_callbacks)
    assert [m["type"] for m in messages] == ["session.event", "session.event"]
    assert [m["message"]["seq"] for m in messages] == [2, 1]  # clients order by seq
    assert messages[0]["message"] == {
        **messages[0]["message"], "type": "reasoning_thought", "session": session.pk, "text": "Planning",
    }


def test_rolled_back_events_are_never_published(demo_workspace, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        session_create(workspace=demo_workspace, question="What is a dock permit?")
    assert len(callbacks) == 1  # sent only if the transaction commits


@pytest.fixture
def redis_url():
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is not installed: run `make system-deps`")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([server, "--port", str(port), "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(timeout=10)


def test_events_publish_through_redis(demo_workspace, redis_url, django_capture_on_commit_callbacks):
    layers = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer",
                          "CONFIG": {"hosts": [redis_url]}}}
    with override_settings(CHANNEL_LAYERS=layers):
        channel_layers.backends.clear()
        try:
            assert type(get_channel_layer()).__name__ == "RedisChannelLayer"
            session, messages = _published(demo_workspace, django_capture_on_commit_callbacks)
        finally:
            channel_layers.backends.clear()
    assert sorted(m["message"]["seq"] for m in messages) == [1, 2]
    assert {m["message"]["session"] for m in messages} == {session.pk}
