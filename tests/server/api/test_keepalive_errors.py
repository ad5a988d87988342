"""An unexpected error is a 500 in the one error shape, and the keep-alive connection it came on
still serves the next request (a real uvicorn server, one raw connection); one in a socket's
handshake is logged with where it happened and the server goes on."""

import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from fastapi import FastAPI, WebSocket
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests.conftest import LiveServer, start_live_server
from tests.waiting import SCALE


def add_failing_routes(app: FastAPI) -> None:
    def crash() -> None:
        raise RuntimeError("a bug")

    def os_failure() -> None:
        raise PermissionError(13, "permission denied")

    async def socket_os_failure(websocket: WebSocket) -> None:
        raise ConnectionResetError(104, "the peer went away during the handshake")

    app.add_api_route("/api/test/crash", crash)
    app.add_api_route("/api/test/os-failure", os_failure)
    app.add_api_websocket_route("/api/test/ws-os-failure", socket_os_failure)


@pytest.fixture
def failing_server(settings) -> Iterator[LiveServer]:
    live, thread = start_live_server(settings, customize=add_failing_routes)
    try:
        yield live
    finally:
        live.server.should_exit = True
        thread.join(timeout=15)


class KeepAlive:
    """One HTTP/1.1 connection, requests sent one after another on it."""

    def __init__(self, live: LiveServer) -> None:
        parts = urlsplit(live.url)
        self.host = parts.netloc
        self.token = live.token
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=20 * SCALE)
        self.buffer = b""

    def get(self, path: str) -> tuple[int, dict]:
        request = (f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                   f"Authorization: Bearer {self.token}\r\n\r\n")
        self.sock.sendall(request.encode())
        head = self._until(b"\r\n\r\n").decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in head[1:] if line)
        lowered = {k.lower(): v for k, v in headers.items()}
        assert lowered.get("connection", "").lower() != "close", head
        body = self._exact(int(lowered["content-length"]))
        return int(head[0].split()[1]), json.loads(body)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the keep-alive connection")
        self.buffer += chunk

    def _until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        found, _, self.buffer = self.buffer.partition(marker)
        return found

    def _exact(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        found, self.buffer = self.buffer[:size], self.buffer[size:]
        return found


@pytest.mark.parametrize("path", ["/api/test/crash", "/api/test/os-failure"])
def test_a_500_leaves_the_connection_usable(failing_server, path):
    connection = KeepAlive(failing_server)
    try:
        for _ in range(2):
            assert connection.get(path) == (500, {"detail": "internal server error", "code": "internal"})
            status, body = connection.get("/api/health")
            assert status == 200, body
    finally:
        connection.sock.close()


def test_an_os_error_in_a_socket_handshake_is_logged_by_its_path(failing_server, caplog):
    """A socket has no HTTP method: the handler logging the error must not fail on it."""
    url = failing_server.url.replace("http://", "ws://") + "/api/test/ws-os-failure"
    with caplog.at_level("ERROR", logger="mnnwb"):
        with pytest.raises(InvalidStatus):
            with connect(url, additional_headers=failing_server.auth, open_timeout=20 * SCALE):
                pass
    logged = [r.getMessage() for r in caplog.records if "unhandled" in r.getMessage()]
    assert logged == ["unhandled error on websocket /api/test/ws-os-failure"], caplog.text
    assert "has no attribute" not in caplog.text
    connection = KeepAlive(failing_server)
    try:
        assert connection.get("/api/health")[0] == 200
    finally:
        connection.sock.close()
