"""``mnnwb serve`` refuses to go beyond loopback without team mode; TLS marks cookies Secure."""

import io
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from sqlmodel import Session

from server import cli
from server.api.services import services_of
from server.app import create_app
from server.core.config import Settings
from server.users import service
from tests.conftest import _free_port
from tests.server.team.certs import self_signed
from tests.server.team.conftest import PASSWORD, team_settings
from tests.waiting import wait_until


def _user(argv: list[str], data: Path, stdin: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return cli.main(["user", *argv[:1], "--data-dir", str(data), *argv[1:]])


def test_first_admin_bootstrap_and_user_commands(tmp_path: Path, monkeypatch, capsys):
    data = tmp_path / "data"
    assert _user(["add", "Alice", "--admin", "--password-stdin"], data, PASSWORD + "\n", monkeypatch) == 0
    assert _user(["add", "bob"], data, PASSWORD + "\n", monkeypatch) == 0
    assert _user(["add", "carol"], data, "short\n", monkeypatch) == 1
    assert "at least" in capsys.readouterr().err
    assert _user(["list"], data, "", monkeypatch) == 0
    listing = capsys.readouterr().out.split()
    assert listing == ["alice", "admin", "bob", "member"]
    assert _user(["passwd", "bob", "--password-stdin"], data, "a new long password\n", monkeypatch) == 0
    assert _user(["remove", "bob"], data, "", monkeypatch) == 0
    assert _user(["remove", "bob"], data, "", monkeypatch) == 1


def test_serving_beyond_loopback_needs_team_mode_with_an_admin(tmp_path: Path, monkeypatch):
    data = tmp_path / "data"
    wide = Settings(data_dir=data, host="0.0.0.0")
    assert "team mode" in (cli.serve_problem(wide) or "")
    assert cli.main(["serve", "--host", "0.0.0.0", "--data-dir", str(data)]) == 2
    team = Settings(data_dir=data, host="0.0.0.0", mode="team")
    assert "administrator" in (cli.serve_problem(team) or "")
    _user(["add", "alice", "--password-stdin"], data, PASSWORD + "\n", monkeypatch)
    assert "administrator" in (cli.serve_problem(team) or "")
    _user(["add", "root", "--admin", "--password-stdin"], data, PASSWORD + "\n", monkeypatch)
    assert cli.serve_problem(team) is None
    assert cli.serve_problem(Settings(data_dir=data)) is None
    half_tls = Settings(data_dir=data, certfile=tmp_path / "c.pem")
    assert "keyfile" in (cli.serve_problem(half_tls) or "")
    assert cli.url_for(team, "secret").endswith("/login") and "secret" not in cli.url_for(team, "secret")


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, ssl.SSLContext]]:
    certfile, keyfile = self_signed(tmp_path)
    settings = team_settings(tmp_path / "data", certfile=certfile, keyfile=keyfile)
    port = _free_port()
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ssl_certfile=str(certfile),
        ssl_keyfile=str(keyfile),
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), what="the TLS server to start")
    assert thread.is_alive(), "the TLS server did not start"
    with Session(services_of(app).engine) as session:
        service.add_user(session, "alice", PASSWORD, "admin")
    try:
        yield f"https://127.0.0.1:{port}", ssl.create_default_context(cafile=str(certfile))
    finally:
        server.should_exit = True
        thread.join(timeout=15)


def test_tls_serves_https_and_marks_the_session_cookie_secure(tls_server):
    url, context = tls_server
    with httpx.Client(base_url=url, verify=context) as client:
        assert client.get("/api/health").json()["status"] == "ok"
        login = client.post("/api/auth/login", json={"name": "alice", "password": PASSWORD})
        assert login.status_code == 200
        assert "; Secure" in login.headers["set-cookie"]
        assert client.get("/api/projects").status_code == 200
    with pytest.raises(httpx.HTTPError), httpx.Client() as plain:
        plain.get(url.replace("https", "http") + "/api/health")
