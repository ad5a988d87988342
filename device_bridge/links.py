"""What the hub keeps of each device connection and each debug session: who a device is, the
limits a connection is held to, an authenticated link and a session's waiters and streams.
The hub that routes between them is ``device_bridge/hub.py``."""

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from device_bridge import protocol as p
from device_bridge.errors import DeviceOffline
from device_bridge.transport import Transport, TransportClosed

SessionState = Literal["open", "lost", "closed"]


@dataclass
class Identity:
    """Who a hello's token belongs to; ``token`` is set when a pairing code was redeemed."""

    device_id: str
    name: str
    token: str | None = None


Verifier = Callable[[p.Hello], Awaitable[Identity | None]]


@dataclass
class Limits:
    ping_interval: float = p.PING_INTERVAL
    ping_timeout: float = p.PING_TIMEOUT
    rate: float = p.RATE_PER_SECOND
    burst: float = p.RATE_BURST
    max_message_bytes: int = p.MAX_MESSAGE_BYTES
    reply_timeout: float = 60.0


@dataclass
class Session:
    sid: str
    project_id: str
    device_id: str
    state: SessionState = "open"
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiters: dict[str, asyncio.Future[Any]] = field(default_factory=dict)
    perf: list[Any] = field(default_factory=list)  # ``PerfSample``s
    # a request's stream of replies (``llm.*`` by ``rid``); a lost device puts its error there
    streams: dict[str, asyncio.Queue[Any]] = field(default_factory=dict)

    def view(self) -> dict[str, Any]:
        return {"sid": self.sid, "project": self.project_id, "device_id": self.device_id,
                "state": self.state}

    def expect(self, kind: str) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiters[kind] = future
        return future

    def resolve(self, kind: str, value: Any) -> None:
        future = self.waiters.pop(kind, None)
        if future is not None and not future.done():
            future.set_result(value)

    def fail_waiters(self, error: Exception) -> None:
        for future in self.waiters.values():
            if not future.done():
                future.set_exception(error)
        self.waiters.clear()
        for stream in self.streams.values():
            stream.put_nowait(error)


class Link:
    """One authenticated device connection."""

    def __init__(self, identity: Identity, info: p.DeviceInfo, transport: Transport) -> None:
        self.device_id = identity.device_id
        self.name = identity.name
        self.info = info
        self.transport = transport
        self.last_seen = time.monotonic()
        self._send_lock = asyncio.Lock()

    async def send(self, frame: str | bytes | BaseModel) -> None:
        data = p.encode(frame) if isinstance(frame, BaseModel) else frame
        async with self._send_lock:
            try:
                await self.transport.send(data)
            except TransportClosed as exc:
                raise DeviceOffline(f"device {self.name} went offline") from exc


class RateLimiter:
    """A token bucket over messages."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst, self.tokens = rate, burst, burst
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
