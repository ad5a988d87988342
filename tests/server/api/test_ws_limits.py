"""Websocket messages are bounded by the protocol layer: a frame whose header declares more
than the socket's limit is refused (close 1009) before its payload is read, let alone buffered.

Each test sends only the header of an oversized frame and no payload: the close can only come
back if the server judged the declared length, not the bytes.
"""

import base64
import gc
import os
import socket
import struct
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.server import ServerProtocol

from device_bridge.wire import WS_PATH
from server.api.ws_limits import DEVICE_MAX_BYTES, TAB_MAX_BYTES
from tests.waiting import SCALE, wait_until

TEXT_FIN = 0x81
CLOSE = 0x8


class RawSocket:
    """A client websocket written by hand, so a frame header can be sent without its payload."""

    def __init__(self, url: str, path: str, headers: dict[str, str]) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=20 * SCALE)
        self.buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {parts.netloc}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
                 *(f"{name}: {value}" for name, value in headers.items())]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        answer, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 101"), answer
        self.answer = answer.decode("latin-1")

    def __enter__(self) -> "RawSocket":
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed without a close frame")
        self.buffer += chunk

    def read(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def send_header(self, declared: int) -> None:
        """A masked text frame's header declaring ``declared`` payload bytes, and no payload."""
        self.sock.sendall(struct.pack("!BBQ", TEXT_FIN, 0x80 | 127, declared) + os.urandom(4))

    def send_text(self, payload: bytes) -> None:
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(struct.pack("!BBQ", TEXT_FIN, 0x80 | 127, len(payload)) + mask + masked)

    def close_code(self) -> int:
        """Read the server's frames up to its close frame and return the close code."""
        while True:
            first, second = self.read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self.read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self.read(8))[0]
            payload = self.read(length)
            if first & 0x0F == CLOSE:
                return int(struct.unpack("!H", payload[:2])[0])


def bearer(live_server) -> dict[str, str]:
    return {"Authorization": f"Bearer {live_server.token}"}


@pytest.fixture
def tab_path(live_server) -> str:
    with httpx.Client(base_url=live_server.url, headers=live_server.auth) as api:
        project = api.post("/api/projects", json={"name": "demo", "template": "empty"}).json()
    return f"/api/projects/{project['id']}/ws"


def test_a_tab_frame_over_the_limit_is_refused_from_its_header(live_server, tab_path):
    with RawSocket(live_server.url, tab_path, bearer(live_server)) as ws:
        ws.send_header(TAB_MAX_BYTES + 1)
        assert ws.close_code() == 1009


def test_the_issue_s_15_mib_tab_frame_is_refused_from_its_header(live_server, tab_path):
    with RawSocket(live_server.url, tab_path, bearer(live_server)) as ws:
        ws.send_header(15 * 1024 * 1024)
        assert ws.close_code() == 1009


def test_a_device_frame_over_the_limit_is_refused_from_its_header(live_server):
    with RawSocket(live_server.url, WS_PATH, {}) as ws:
        ws.send_header(DEVICE_MAX_BYTES + 1)
        assert ws.close_code() == 1009


def test_a_tab_message_within_the_limit_is_still_read(live_server, tab_path):
    """The limit is the tab's, not lower: a full-size (malformed) message reaches the app,
    which answers it as malformed (1003), not as too big."""
    with RawSocket(live_server.url, tab_path, bearer(live_server)) as ws:
        ws.send_text(b"x" * TAB_MAX_BYTES)
        assert ws.close_code() == 1003


def test_a_refused_frame_leaves_no_connection_behind_for_the_collector(live_server, tab_path):
    """A refused message's connection is freed when it closes, not at some later full collection:
    with start-up objects frozen, such collections are rare, and 30 tabs flooding once left 33 MB
    held this way (bench/ws_flood.py)."""
    gc.collect()
    gc.disable()
    try:
        with RawSocket(live_server.url, tab_path, bearer(live_server)) as ws:
            ws.send_header(15 * 1024 * 1024)
            assert ws.close_code() == 1009
        wait_until(lambda: not live_server.server.server_state.connections,
                   what="the server to let the connection go")
        # Freed by reference counting alone (the collector is off) once the loop has run the
        # connection's last callbacks; a reference cycle would keep it until the timeout.
        # type(), not isinstance(): some objects (torch's) warn when asked for __class__.
        wait_until(lambda: not [o for o in gc.get_objects() if issubclass(type(o), ServerProtocol)],
                   what="the refused connection's protocol to be freed")
    finally:
        gc.enable()


def test_no_socket_is_compressed_even_when_the_client_offers_it(live_server, tab_path):
    offer = {**bearer(live_server), "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits"}
    for path in (tab_path, WS_PATH):
        with RawSocket(live_server.url, path, offer) as ws:
            assert "sec-websocket-extensions" not in ws.answer.lower(), ws.answer
