"""The Redis channel layer with a blocking connection pool (``REDIS_URL``).

channels-redis builds a plain ``redis.asyncio.ConnectionPool`` per Redis host; redis-py
8 caps it at 100 connections and *raises* ``MaxConnectionsError`` beyond that. Every
websocket that connects runs a ``group_add`` (and every event a ``group_send``), so a
burst of a few hundred clients on one daphne process failed many of them (measured: 626
"Too many connections" for 1,500 clients in two rounds on one process). A ``BlockingConnectionPool`` makes the
burst wait for a free connection instead, and bounds the connections each process
opens to Redis (``REDIS_POOL_SIZE`` per process and host).

Also, redis-py 8's default socket timeout (5 s) equals channels-redis's ``BZPOPMIN``
wait (``brpop_timeout``, 5 s): a process's receive loop idle for 5 s raised
``TimeoutError`` inside the consumer that drove it, and that client stopped getting
events (one client lost per round in the measurements). The socket timeout here leaves
the blocking pop room to return.
"""

from __future__ import annotations

from channels_redis.core import RedisChannelLayer
from django.conf import settings
from redis.asyncio import BlockingConnectionPool

SOCKET_TIMEOUT_MARGIN = 10  # seconds beyond the blocking pop's own wait


class BlockingPoolRedisChannelLayer(RedisChannelLayer):
    """``channels_redis.core.RedisChannelLayer`` whose pools wait for a free connection
    (at most ``REDIS_POOL_TIMEOUT`` seconds, then ``redis.ConnectionError``)."""

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        address = host.pop("address", None)
        if address is None:  # sentinel or keyword hosts: channels-redis's own pool
            return super().create_pool(index)
        return BlockingConnectionPool.from_url(
            address, max_connections=settings.REDIS_POOL_SIZE,
            timeout=settings.REDIS_POOL_TIMEOUT,
            socket_timeout=self.brpop_timeout + SOCKET_TIMEOUT_MARGIN, **host,
        )
