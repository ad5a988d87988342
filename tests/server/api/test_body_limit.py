"""A request body the server would read whole is capped before it is read
(``server/api/body_limit.py``): a declared length over the cap is answered 413 without reading a
byte of the body, a chunked body is refused once it passes the cap, uploads keep their own
limit, and the server goes on serving (a real uvicorn server)."""

import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import CSRF, LiveServer
from tests.waiting import SCALE

LIMIT = 64 * 1024


@pytest.fixture
def settings(settings):
    settings.json_body_max_bytes = LIMIT
    return settings


@pytest.fixture
def http(live_server: LiveServer) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {live_server.token}", **CSRF}
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=60 * SCALE) as client:
        yield client


@pytest.fixture
def pid(http: httpx.Client) -> str:
    created = http.post("/api/projects", json={"name": "capped", "template": "empty", "git": False})
    assert created.status_code == 201, created.text
    saved = http.put(f"/api/projects/{created.json()['id']}/files/content", params={"path": "a.py"},
                     json={"content": "x = 1\n"})
    assert saved.status_code == 200, saved.text
    return created.json()["id"]


def edits(new_text: str) -> dict:
    edit = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "newText": new_text}
    return {"files": [{"path": "a.py", "edits": [edit]}]}


def test_a_declared_length_over_the_cap_is_refused_before_the_body_is_read(
    live_server: LiveServer, pid: str, http: httpx.Client,
) -> None:
    parts = urlsplit(live_server.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30 * SCALE) as sock:
        # Ten gigabytes declared, none sent: an answer can only come from the declared length.
        sock.sendall((f"POST /api/projects/{pid}/lsp/edits/preview HTTP/1.1\r\n"
                      f"Host: {parts.netloc}\r\nAuthorization: Bearer {live_server.token}\r\n"
                      "Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n").encode())
        answer = b""
        while b"}" not in answer:
            chunk = sock.recv(65536)
            assert chunk, f"the server closed without an answer: {answer!r}"
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.1 413 Request Entity Too Large"
    assert json.loads(body)["code"] == "body_too_large"
    assert http.get("/api/health").status_code == 200


def test_a_chunked_body_is_refused_once_it_passes_the_cap(pid: str, http: httpx.Client) -> None:
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        body = json.dumps(edits("y" * (4 * LIMIT))).encode()
        for start in range(0, len(body), 8192):
            sent += 8192
            yield body[start:start + 8192]

    answer = http.post(f"/api/projects/{pid}/lsp/edits/preview", content=chunks(),
                       headers={"Content-Type": "application/json"})
    assert answer.status_code == 413, answer.text
    assert answer.json()["code"] == "body_too_large"
    assert str(LIMIT) in answer.json()["detail"]
    # Under the cap the same route answers as before.
    preview = http.post(f"/api/projects/{pid}/lsp/edits/preview", json=edits("y = 2"))
    assert preview.status_code == 200, preview.text
    assert preview.json()["files"][0]["path"] == "a.py"


def test_uploads_keep_their_own_limit(pid: str, http: httpx.Client) -> None:
    big = b"\0" * (3 * LIMIT)
    uploaded = http.post(f"/api/projects/{pid}/files/upload", data={"dir": ""},
                         files={"files": ("big.bin", big, "application/octet-stream")})
    assert uploaded.status_code == 201, uploaded.text
    raw = http.get(f"/api/projects/{pid}/files/raw", params={"path": "big.bin"})
    assert raw.content == big


def test_the_document_names_413_for_every_operation_with_a_body(http: httpx.Client) -> None:
    document = http.get("/openapi.json").json()
    with_body = [(path, method) for path, operations in document["paths"].items()
                 for method, operation in operations.items() if operation.get("requestBody")]
    assert len(with_body) > 40
    missing = [(path, method) for path, method in with_body
               if "413" not in document["paths"][path][method]["responses"]]
    assert missing == []
