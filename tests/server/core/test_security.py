"""Security: auth on every route and method, Host allowlist, CSRF, websocket Origin, token file."""

import stat

import pytest
from starlette.websockets import WebSocketDisconnect

from server.api.services import services_of
from server.core.logs import redact
from server.core.security import COOKIE_NAME, load_or_create_token, session_value

OPEN_PATHS = {"/api/health"}


def _concrete(path: str) -> str:
    return path.replace("{pid}", "x").replace("{", "").replace("}", "")


def test_every_route_and_method_needs_auth(anon_client):
    checked = 0
    for path, operations in anon_client.app.openapi()["paths"].items():
        if path in OPEN_PATHS:
            continue
        for method in operations:
            response = anon_client.request(method.upper(), _concrete(path),
                                           headers={"X-MNNWB-CSRF": "1"})
            assert response.status_code == 401, (method, path, response.text)
            checked += 1
    assert checked >= 15


def test_pages_need_auth_and_say_how_to_sign_in(anon_client):
    response = anon_client.get("/")
    assert response.status_code == 401
    assert "mnnwb url" in response.text


def test_health_is_open(anon_client):
    assert anon_client.get("/api/health").json()["status"] == "ok"


def test_websocket_needs_auth(anon_client):
    with pytest.raises(WebSocketDisconnect), anon_client.websocket_connect("ws://127.0.0.1:8765/api/projects/x/ws"):
        pass


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "attacker:8765", ""])
def test_hostile_host_header_is_refused(client, host):
    response = client.get("/api/projects", headers={"Host": host})
    assert response.status_code == 400
    assert response.json()["code"] == "bad_host"


def test_loopback_hosts_are_allowed(client):
    for host in ("localhost:8765", "127.0.0.1", "[::1]:8765"):
        assert client.get("/api/projects", headers={"Host": host}).status_code == 200


def test_text_plain_post_with_the_cookie_is_refused_without_the_header(settings, anon_client):
    token = services_of(anon_client.app).token
    response = anon_client.post(
        "/api/projects", content='{"name": "x"}',
        headers={"Cookie": f"{COOKIE_NAME}={session_value(token)}", "Content-Type": "text/plain"},
    )
    assert response.status_code == 403
    assert anon_client.get("/api/projects", headers={"Authorization": f"Bearer {token}"}).json() == []


def test_cross_origin_post_is_refused(client):
    response = client.post("/api/projects", json={"name": "x"},
                           headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert client.get("/api/projects").json() == []


def test_token_exchange_sets_a_strict_cookie_and_strips_the_token(anon_client):
    token = services_of(anon_client.app).token
    response = anon_client.get(f"/p/abc?token={token}&x=1", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/p/abc?x=1"
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and token not in cookie
    anon_client.cookies.set(COOKIE_NAME, session_value(token))
    assert anon_client.get("/api/projects").status_code == 200


def test_wrong_token_and_wrong_bearer_are_refused(anon_client):
    assert anon_client.get("/?token=nope", follow_redirects=False).status_code == 401
    bad = {"Authorization": "Bearer nope"}
    assert anon_client.get("/api/projects", headers=bad).status_code == 401


def test_cross_site_websocket_origin_is_refused(client, project):
    path = f"ws://127.0.0.1:8765/api/projects/{project['id']}/ws"
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(
        path, headers={"Origin": "http://evil.example"}
    ):
        pass
    with client.websocket_connect(path, headers={"Origin": "http://127.0.0.1:8765"}) as ws:
        assert ws.receive_json()["type"] == "hello"


def test_token_file_is_private_and_long(tmp_path):
    path = tmp_path / "token"
    token = load_or_create_token(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(token) >= 43  # 256 bits in url-safe base64
    assert load_or_create_token(path) == token


def test_secrets_are_redacted_from_log_lines():
    line = 'GET /?token=abc123&x=1 Bearer eyJhb.c https://bob:hunter2@example.com/r.git'
    cleaned = redact(line)
    assert "abc123" not in cleaned and "eyJhb" not in cleaned and "hunter2" not in cleaned
    assert "x=1" in cleaned and "example.com/r.git" in cleaned


def test_errors_have_one_shape_and_no_traceback(client):
    response = client.get("/api/projects/nope")
    assert response.status_code == 404
    assert set(response.json()) == {"detail", "code"}
    response = client.post("/api/projects", json={"nam": 1})
    assert response.status_code == 422 and response.json()["code"] == "invalid"
