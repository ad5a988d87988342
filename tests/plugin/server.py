"""Fresh settings per test, an authenticated client, a live server on a real port."""

import atexit
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.api.services import services_of
from server.api.ws_limits import uvicorn_options
from server.app import create_app
from server.core.config import REPO_ROOT, Settings
from server.core.db import make_engine, migrate
from server.core.security import load_or_create_token
from tests.waiting import wait_until

CSRF = {"X-MNNWB-CSRF": "1"}

# Cloud SDKs ignore NO_PROXY: tests only ever talk to loopback, so no proxy may apply.
for _var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
    os.environ.pop(_var, None)
# The ECS metadata switch of the cloud credential chain is set in tests/__init__.py, before imports.


_migrated: list[Path] = []


def migrated_data_dir(data_dir: Path) -> Path:
    """``data_dir`` made, holding a copy of a SQLite database the real migrations brought to the
    newest schema once per session: running them takes ~0.3 s, and nearly every test starts a
    server on a new data folder. Start-up still runs the migrations, which find nothing to do;
    the ``engine`` fixture of tests/server/users/conftest.py runs them on empty SQLite and
    PostgreSQL databases."""
    if not _migrated:
        folder = Path(tempfile.mkdtemp(prefix="mnnwb-migrated-"))
        atexit.register(shutil.rmtree, folder, True)
        engine = make_engine(f"sqlite:///{folder / 'workbench.db'}")
        migrate(engine)
        engine.dispose()
        _migrated.append(folder / "workbench.db")
    data_dir.mkdir(parents=True)
    shutil.copyfile(_migrated[0], data_dir / "workbench.db")
    return data_dir


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings of a personal-mode server on a fresh, migrated data folder of this test."""
    return Settings(
        data_dir=migrated_data_dir(tmp_path / "data"),
        webui_dist=REPO_ROOT / "webui" / "dist",
        ws_ping_interval=20.0,
    )


def make_client(settings: Settings) -> TestClient:
    """An authenticated client that sends the CSRF header; enter it to run the lifespan."""
    app = create_app(settings)
    headers = {"Authorization": f"Bearer {load_or_create_token(settings.token_file)}", **CSRF}
    return TestClient(app, base_url="http://127.0.0.1:8765", headers=headers)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """An in-process client of the app of ``settings``, with its token and the CSRF header."""
    with make_client(settings) as test_client:
        yield test_client


@pytest.fixture
def anon_client(settings: Settings) -> Iterator[TestClient]:
    """A client with no credentials at all."""
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8765") as test_client:
        yield test_client


@dataclass
class LiveServer:
    """A server on a real port: its address, token, settings and the uvicorn server."""

    url: str
    token: str
    settings: Settings
    server: uvicorn.Server

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", **CSRF}


def free_port() -> int:
    """A TCP port of 127.0.0.1 free right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_free_port = free_port  # the former name, still imported by some tests


def start_live_server(
    settings: Settings, customize: Callable[[FastAPI], None] | None = None
) -> tuple[LiveServer, threading.Thread]:
    """uvicorn in a thread; returns once ``server.started`` is set. ``customize`` may add
    routes to the app before it serves."""
    port = free_port()
    settings.port = port
    app = create_app(settings)
    if customize is not None:
        customize(app)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            **uvicorn_options())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), what="the live server to start")
    if not thread.is_alive():
        raise RuntimeError("the live server did not start")
    live = LiveServer(f"http://127.0.0.1:{port}", services_of(app).token, settings, server)
    return live, thread


@pytest.fixture
def live_server(settings: Settings) -> Iterator[LiveServer]:
    """The app of ``settings`` served by uvicorn on a free port, stopped after the test."""
    live, thread = start_live_server(settings)
    try:
        yield live
    finally:
        live.server.should_exit = True
        thread.join(timeout=15)
