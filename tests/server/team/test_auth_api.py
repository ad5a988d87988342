"""Team-mode sign-in over HTTP: cookies, throttling, expiry, logout, tokens, proxies, audit."""

from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient
from sqlmodel import select

from server.api.services import services_of
from server.app import create_app
from server.core.db import utcnow
from server.core.security import COOKIE_NAME
from server.users.models import UserSession
from tests.conftest import CSRF
from tests.server.team.conftest import BASE_URL, PASSWORD, Team, start_team, team_settings


def _login(
    team: Team, name: str = "owner", password: str = PASSWORD, headers: dict[str, str] | None = None
) -> tuple[int, str | None, str]:
    team.client.cookies.clear()
    response = team.client.post(
        "/api/auth/login", json={"name": name, "password": password}, headers=headers or {}
    )
    team.client.cookies.clear()
    set_cookie = response.headers.get("set-cookie", "")
    value = set_cookie.split(";")[0].partition("=")[2] if set_cookie else None
    return response.status_code, value, set_cookie


def _as(team: Team, cookie: str, method: str = "GET", url: str = "/api/projects", **kw: object):
    team.client.cookies.clear()
    return team.client.request(method, url, headers={"Cookie": f"{COOKIE_NAME}={cookie}", **CSRF}, **kw)  # type: ignore[arg-type]


def test_login_sets_a_strict_http_only_session_cookie(team: Team):
    status, cookie, header = _login(team)
    assert status == 200 and cookie
    assert "HttpOnly" in header and "SameSite=Strict" in header and "Secure" not in header
    assert _as(team, cookie).status_code == 200
    assert _as(team, cookie + "x").status_code == 401


def test_the_local_token_does_not_work_in_team_mode(team: Team):
    token = services_of(team.client.app).token
    response = team.client.get("/api/projects", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    page = team.client.get(f"/?token={token}", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert COOKIE_NAME not in team.client.cookies


def test_pages_send_strangers_to_the_login_form(team: Team):
    page = team.client.get("/p/abc", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login?next=/p/abc"
    form = team.client.get("/login?next=//evil.example/")
    assert form.status_code == 200 and 'data-next="/"' in form.text and "password" in form.text


def test_login_needs_json_or_the_csrf_header(team: Team):
    bare = TestClient(team.client.app, base_url=BASE_URL)
    form = bare.post(
        "/api/auth/login",
        content=f"name=owner&password={PASSWORD}",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 403 and "set-cookie" not in form.headers
    json = bare.post("/api/auth/login", json={"name": "owner", "password": PASSWORD})
    assert json.status_code == 200 and json.json()["role"] == "member"


def test_failed_logins_are_throttled_then_audited(team: Team):
    for _ in range(3):
        assert _login(team, password="wrong password!")[0] == 401
    status, cookie, _ = _login(team)
    assert status == 429 and cookie is None
    assert _login(team, name="editor")[0] == 200
    audit = team.client.get("/api/audit", headers=team.auth("admin")).json()
    actions = [event["action"] for event in audit]
    assert actions.count("login.failed") == 3 and actions.count("login") == 1
    assert team.client.get("/api/audit", headers=team.auth("owner")).status_code == 403


def test_an_expired_session_is_refused(team: Team):
    _, cookie, _ = _login(team)
    assert cookie and _as(team, cookie).status_code == 200
    with team.session() as session:
        for row in session.exec(select(UserSession)):
            row.expires_at = utcnow() - timedelta(seconds=1)
            session.add(row)
        session.commit()
    assert _as(team, cookie).status_code == 401


def test_logout_and_logout_everywhere(team: Team):
    cookies = [_login(team)[1] or "" for _ in range(3)]
    out = _as(team, cookies[0], "POST", "/api/auth/logout", json={})
    assert out.status_code == 204 and "Max-Age=0" in out.headers["set-cookie"]
    assert [_as(team, c).status_code for c in cookies] == [401, 200, 200]
    everywhere = _as(team, cookies[1], "POST", "/api/auth/logout", json={"everywhere": True})
    assert everywhere.status_code == 204
    assert [_as(team, c).status_code for c in cookies] == [401, 401, 401]
    assert team.client.get("/api/projects", headers=team.auth("owner")).status_code == 200


def test_personal_tokens_are_shown_once_and_revocable(team: Team):
    _, cookie, _ = _login(team)
    assert cookie
    created = _as(team, cookie, "POST", "/api/auth/tokens", json={"name": "ci"})
    assert created.status_code == 201
    token = created.json()["token"]
    listed = _as(team, cookie, "GET", "/api/auth/tokens").json()
    assert "ci" in [t["name"] for t in listed] and all("token" not in t for t in listed)
    bearer = {"Authorization": f"Bearer {token}"}
    assert team.client.get("/api/projects", headers=bearer).status_code == 200
    revoked = _as(team, cookie, "DELETE", f"/api/auth/tokens/{created.json()['id']}")
    assert revoked.status_code == 204
    assert team.client.get("/api/projects", headers=bearer).status_code == 401


def test_forwarded_headers_count_only_from_trusted_proxies(tmp_path: Path):
    for trusted, expected_address, secure in (
        ([], "testclient", False),
        (["testclient"], "203.0.113.7", True),
    ):
        settings = team_settings(tmp_path / str(len(trusted)), trusted_proxies=trusted)
        for team in start_team(settings):
            forwarded = {"X-Forwarded-For": "198.51.100.1, 203.0.113.7", "X-Forwarded-Proto": "https"}
            _, _, header = _login(team, headers=forwarded)
            assert ("Secure" in header) == secure
            audit = team.client.get("/api/audit", headers=team.auth("admin")).json()
            assert audit[0]["action"] == "login" and audit[0]["address"] == expected_address


def test_local_mode_rejects_password_login_and_tokens(settings):
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        headers = {"Authorization": f"Bearer {services_of(client.app).token}", **CSRF}
        login = client.post("/api/auth/login", json={"name": "local", "password": "x" * 12}, headers=headers)
        assert (login.status_code, login.json()["code"]) == (422, "local_mode")
        assert client.post("/api/auth/tokens", json={"name": "x"}, headers=headers).status_code == 422
        assert client.get("/api/projects", headers=headers).status_code == 200


def test_users_are_listed_and_devices_shared_by_their_owner(team: Team):
    from server.devices.models import Device
    from server.users.service import find_user

    names = [u["name"] for u in team.client.get("/api/users", headers=team.auth("viewer")).json()]
    assert names == ["admin", "editor", "outsider", "owner", "viewer"]
    with team.session() as session:
        device = Device(name="phone", owner_id=find_user(session, "owner").id, agent_id="a",
                        token_hash="h" * 64)
        session.add(device)
        session.commit()
        did = device.id
    url = f"/api/devices/{did}/shares/editor"
    assert team.client.put(url, headers=team.auth("editor")).status_code == 404
    assert team.client.put(url, headers=team.auth("owner")).status_code == 204
    shares = team.client.get(f"/api/devices/{did}/shares", headers=team.auth("owner")).json()
    assert shares == ["editor"]
    # Each caller is told who paired the device and whether that is them.
    seen = {who: [(d["name"], d["owner"], d["mine"], d["manage"]) for d in
                  team.client.get("/api/devices", headers=team.auth(who)).json()]
            for who in ("owner", "editor", "admin", "viewer")}
    assert seen == {"owner": [("phone", "owner", True, True)], "editor": [("phone", "owner", False, False)],
                    "admin": [("phone", "owner", False, True)], "viewer": []}
    device_url = f"/api/devices/{did}"
    assert team.client.patch(device_url, json={"name": "x"}, headers=team.auth("editor")).status_code == 404
    assert team.client.delete(url, headers=team.auth("owner")).status_code == 204
    # An admin manages every device: shares it, renames it.
    assert team.client.put(url, headers=team.auth("admin")).status_code == 204
    renamed = team.client.patch(device_url, json={"name": "lab phone"}, headers=team.auth("admin"))
    assert renamed.status_code == 200 and renamed.json()["name"] == "lab phone"
    assert team.client.delete(url, headers=team.auth("admin")).status_code == 204
