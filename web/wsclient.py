"""A minimal asyncio websocket client (RFC 6455: text frames, ping/pong, close) for the
load test. autobahn's asyncio client cannot be used in a Django process: daphne's app
makes txaio choose Twisted."""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from urllib.parse import urlsplit


class WebSocketClosed(ConnectionError):
    """The server closed the connection (``code`` as sent, 1006 when none was)."""

    def __init__(self, code: int):
        super().__init__(f"websocket closed with code {code}")
        self.code = code


class WebSocket:
    """One client connection; create with :meth:`connect`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, url: str, headers: dict[str, str]) -> WebSocket:
        """Open ``url`` (``ws://host:port/path?query``) with extra request ``headers``.
        Raises ``ConnectionError`` when the server does not switch protocols."""
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
        key = base64.b64encode(os.urandom(16)).decode()
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        lines = [f"GET {target} HTTP/1.1", f"Host: {parts.netloc}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
                 *(f"{k}: {v}" for k, v in headers.items())]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        response = await reader.readuntil(b"\r\n\r\n")
        if not response.startswith(b"HTTP/1.1 101"):
            writer.close()
            raise ConnectionError(response.split(b"\r\n", 1)[0].decode("latin-1"))
        return cls(reader, writer)

    def _send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x80 | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        self.writer.write(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    async def send_text(self, text: str) -> None:
        """Send one text message."""
        self._send(0x1, text.encode("utf-8"))
        await self.writer.drain()

    async def receive_text(self) -> str:
        """The next text message; raises :class:`WebSocketClosed` on a close frame or EOF."""
        message = b""
        while True:
            try:
                head = await self.reader.readexactly(2)
            except asyncio.IncompleteReadError as exc:
                raise WebSocketClosed(1006) from exc
            fin, opcode, n = head[0] & 0x80, head[0] & 0x0F, head[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            payload = await self.reader.readexactly(n)  # server frames are not masked
            if opcode == 0x8:
                raise WebSocketClosed(struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005)
            if opcode == 0x9:
                self._send(0xA, payload)
                continue
            if opcode in (0x0, 0x1):
                message += payload
                if fin:
                    return message.decode("utf-8")

    async def close(self) -> None:
        """Send a normal close and drop the connection."""
        try:
            self._send(0x8, struct.pack("!H", 1000))
            await self.writer.drain()
        except ConnectionError:
            pass
        self.writer.close()
