"""A team-mode app with one user per role, each with a personal API token: in process
(``team``, a ``TestClient``) or on a real port (``live_team``).

``admin`` is an administrator; ``owner`` creates projects; ``editor`` and ``viewer`` are added to
them as members; ``outsider`` is a member of the team but not of the project.
"""

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from sqlmodel import Session
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from server.api.services import services_of
from server.app import create_app
from server.core.config import REPO_ROOT, Settings
from server.core.db import make_engine
from server.core.security import COOKIE_NAME
from server.users import passwords, service, sessions
from tests.plugin.server import CSRF, LiveServer, migrated_data_dir, start_live_server

PASSWORD = "correct horse battery"
ROLES = ("outsider", "viewer", "editor", "owner", "admin")
BASE_URL = "http://127.0.0.1:8765"


@pytest.fixture
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real argon2id at a test-sized cost for this test: the default takes about a second per hash."""
    monkeypatch.setattr(
        passwords, "current", passwords.Hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    )


def team_settings(data_dir: Path, **extra: Any) -> Settings:
    """Settings of a team-mode server on ``data_dir`` (migrated unless a ``database_url`` is given)."""
    return Settings(
        data_dir=data_dir if "database_url" in extra else migrated_data_dir(data_dir),
        webui_dist=REPO_ROOT / "webui" / "dist",
        mode="team",
        watch_files=False,
        login_max_failures=3,
        login_max_failures_per_address=6,
        **extra,
    )


@dataclass
class Team:
    """A team-mode app in process, with a personal API token per role of ``ROLES``."""

    client: TestClient
    tokens: dict[str, str] = field(default_factory=dict)

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}", **CSRF}

    def session(self) -> Session:
        return Session(services_of(self.client.app).engine)

    def new_project(self, name: str = "demo") -> str:
        """A project made by ``owner`` with ``editor`` and ``viewer`` as members."""
        response = self.client.post("/api/projects", json={"name": name}, headers=self.auth("owner"))
        assert response.status_code == 201, response.text
        pid = response.json()["id"]
        for who in ("editor", "viewer"):
            added = self.client.put(
                f"/api/projects/{pid}/members/{who}", json={"role": who}, headers=self.auth("owner")
            )
            assert added.status_code == 200, added.text
        return str(pid)


def start_team(settings: Settings) -> Iterator[Team]:
    """The app of ``settings`` with one user per role of ``ROLES``, while the generator runs."""
    app = create_app(settings)
    with TestClient(app, base_url=BASE_URL, headers=CSRF, raise_server_exceptions=False) as client:
        team = Team(client)
        with team.session() as session:
            for who in ROLES:
                user = service.add_user(session, who, PASSWORD, "admin" if who == "admin" else "member")
                team.tokens[who] = sessions.create_token(session, user, "tests", None).token
        yield team


@pytest.fixture
def team(tmp_path: Path, cheap_hashes: None) -> Iterator[Team]:
    """A team-mode app in process, one user per role (see the module's docstring)."""
    yield from start_team(team_settings(tmp_path / "data"))


@dataclass
class LiveTeam:
    """A team-mode server on a real port (uvicorn in a thread), with the accounts of ``ROLES``."""

    live: LiveServer
    tokens: dict[str, str]
    opened: ExitStack = field(default_factory=ExitStack)

    @property
    def url(self) -> str:
        return self.live.url

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}", **CSRF}

    def login(self, who: str) -> str:
        """A new browser session for ``who``: the value of its cookie."""
        response = httpx.post(f"{self.url}/api/auth/login", json={"name": who, "password": PASSWORD},
                              headers=CSRF)
        assert response.status_code == 200, response.text
        return response.cookies[COOKIE_NAME]

    def socket(self, path: str, who: str | None = None, cookie: str | None = None) -> ClientConnection:
        """A websocket on ``path`` with ``who``'s API token, or with a session ``cookie``; closed
        (if the server has not) when the test ends."""
        headers = {"Cookie": f"{COOKIE_NAME}={cookie}"} if cookie else self.auth(str(who))
        url = self.url.replace("http", "ws", 1) + path
        return self.opened.enter_context(ws_connect(url, additional_headers=headers))

    def new_project(self, name: str = "demo", owner: str = "owner") -> str:
        """A project made by ``owner`` with ``editor`` and ``viewer`` as members."""
        response = httpx.post(f"{self.url}/api/projects", json={"name": name}, headers=self.auth(owner))
        assert response.status_code == 201, response.text
        pid = str(response.json()["id"])
        for who in ("editor", "viewer"):
            added = httpx.put(f"{self.url}/api/projects/{pid}/members/{who}", json={"role": who},
                              headers=self.auth(owner))
            assert added.status_code == 200, added.text
        return pid


def start_live_team(settings: Settings) -> Iterator[LiveTeam]:
    """A team-mode server of ``settings`` on a real port, with one user per role of ``ROLES``."""
    engine = make_engine(settings.db_url)
    tokens = {}
    with Session(engine) as session:
        for who in ROLES:
            user = service.add_user(session, who, PASSWORD, "admin" if who == "admin" else "member")
            tokens[who] = sessions.create_token(session, user, "tests", None).token
    engine.dispose()
    live, thread = start_live_server(settings)
    team = LiveTeam(live, tokens)
    try:
        yield team
    finally:
        team.opened.close()
        live.server.should_exit = True
        thread.join(timeout=15)


@pytest.fixture
def live_team(tmp_path: Path, cheap_hashes: None) -> Iterator[LiveTeam]:
    """A team-mode server on a real port, one user per role. Members get terminals here
    (``team_terminal``), so revoking them can be seen."""
    yield from start_live_team(team_settings(tmp_path / "data", team_terminal=True))
