"""Websocket fan-out across several daphne processes through Redis (issue 12, item 2).

Two daphne processes on one SQLite file database and the Redis server of ``REDIS_URL``
(``bin/with-redis``, ``make test-redis``); ``manage.py loadtest_ws`` spreads websocket
clients of one session over both, runs the turn in its own process (which publishes
each stored event to Redis) and reports what every client received. A third daphne
without Redis is the control: only it polls the event log.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from channels_redis.core import RedisChannelLayer
from redis.exceptions import MaxConnectionsError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ciq.web.redis_layer import BlockingPoolRedisChannelLayer
from tests.servers import daphne_start, manage, processes_stop, prod_env

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                                reason="needs REDIS_URL: run it with bin/with-redis (make test-redis)")

POLLING = "Polling the event log of session"
CLIENTS = 60


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """``redis``: two daphne processes with Redis, ``plain``: one without, all on one
    fresh database holding the demo user and the Demo workspace; ``env(redis=)`` the
    matching environment for commands and ``log(name)`` a process's output."""
    tmp = tmp_path_factory.mktemp("fanout")
    # The embedded lexical set-up: the run takes a second, not a model load.
    lexical = {"LOG_LEVEL": "INFO", "CIQ_EMBEDDER": "none", "CIQ_INDEX": "lexical"}
    with_redis = prod_env(tmp, REDIS_URL=os.environ["REDIS_URL"], **lexical)
    without = prod_env(tmp, **lexical)
    manage(without, "migrate", "--noinput", "-v", "0")
    manage(without, "demo_setup", "--password", "ciq-demo-2025")
    started = []
    try:
        for name, env in (("redis-1", with_redis), ("redis-2", with_redis), ("plain", without)):
            process, port = daphne_start(env, tmp / f"{name}.log")
            started.append((name, process, f"http://127.0.0.1:{port}"))
        yield {
            "redis": [url for name, _, url in started if name.startswith("redis")],
            "plain": [url for name, _, url in started if name == "plain"],
            "env": lambda redis: with_redis if redis else without,
            "log": lambda name: (tmp / f"{name}.log").read_text(),
        }
    finally:
        processes_stop([process for _, process, _ in started])


def loadtest(env: dict, urls: list[str], clients: int) -> dict:
    args = ["loadtest_ws", "--clients", str(clients), "--timeout", "60", "--json"]
    for url in urls:
        args += ["--url", url]
    return json.loads(manage(env, *args).strip().splitlines()[-1])


def test_every_client_on_every_daphne_gets_every_event_once_in_order_through_redis(servers):
    result = loadtest(servers["env"](redis=True), servers["redis"], CLIENTS)

    stored = result["stored"]
    assert stored == list(range(1, len(stored) + 1)) and len(stored) > 5  # a whole run
    assert result["connected"] == CLIENTS and result["connect_failures"] == {}
    assert sorted(result["servers"].values()) == [CLIENTS // 2, CLIENTS // 2]
    assert len(result["received"]) == CLIENTS
    for client in result["received"]:
        assert client["seqs"] == stored  # each event once, in seq order, none lost
    assert (result["lost"], result["duplicated"], result["out_of_order"]) == (0, 0, 0)


def test_daphne_with_redis_does_not_poll_the_event_log(servers):
    loadtest(servers["env"](redis=True), servers["redis"], 4)

    assert POLLING not in servers["log"]("redis-1")
    assert POLLING not in servers["log"]("redis-2")


def test_daphne_without_redis_polls_the_event_log(servers):
    result = loadtest(servers["env"](redis=False), servers["plain"], 4)

    assert POLLING in servers["log"]("plain")  # the log line the Redis test relies on
    assert all(client["seqs"] == result["stored"] for client in result["received"])


async def _burst_of_group_adds(layer, count: int) -> list:
    """``count`` concurrent ``group_add`` calls, as a burst of websocket connects makes."""
    try:
        return await asyncio.gather(*(layer.group_add("burst", f"burst.{i}") for i in range(count)),
                                    return_exceptions=True)
    finally:
        await layer.flush()
        await layer.close_pools()


async def test_a_burst_of_connects_waits_for_a_redis_connection_instead_of_failing():
    hosts = [os.environ["REDIS_URL"]]
    stock = await _burst_of_group_adds(RedisChannelLayer(hosts=hosts), 400)
    assert any(isinstance(r, MaxConnectionsError) for r in stock)  # why CIQ has its own layer

    ours = await _burst_of_group_adds(BlockingPoolRedisChannelLayer(hosts=hosts), 400)
    assert [r for r in ours if r is not None] == []


async def _receive_after_idle(layer, idle: float):
    """Wait on a fresh channel while nothing arrives for ``idle`` seconds, then send."""
    channel = await layer.new_channel()
    waiting = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(idle)
    await layer.send(channel, {"type": "after.idle"})
    try:
        return await asyncio.wait_for(waiting, timeout=10)
    except Exception as exc:  # noqa: BLE001 - the stock layer's failure is the result
        return exc
    finally:
        await layer.flush()
        await layer.close_pools()


async def test_a_consumer_idle_longer_than_the_blocking_pop_still_receives():
    hosts = [os.environ["REDIS_URL"]]
    idle = RedisChannelLayer.brpop_timeout + 1.5
    stock, ours = await asyncio.gather(_receive_after_idle(RedisChannelLayer(hosts=hosts), idle),
                                       _receive_after_idle(BlockingPoolRedisChannelLayer(hosts=hosts), idle))
    assert isinstance(stock, RedisTimeoutError)  # redis-py's 5 s socket timeout
    assert ours == {"type": "after.idle"}


def test_redis_url_selects_the_blocking_pool_layer(servers):
    script = ("from channels.layers import get_channel_layer; "
              "print(type(get_channel_layer()).__name__)")
    assert manage(servers["env"](redis=True), "shell", "-c", script).strip().endswith(
        "BlockingPoolRedisChannelLayer")
