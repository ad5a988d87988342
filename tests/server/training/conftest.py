"""Fixtures for the training API: an app whose lifespan runs a ``JobManager``.

``with_job_manager`` does what ``server/app.py``'s lifespan does for the job manager (enter
``running_job_manager`` after the engine and hub exist, leave it before the engine is
disposed); it steps aside when the app's own lifespan already provides ``app.state.jobs``.
"""

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.app import create_app
from server.core.config import Settings
from server.training.service import running_job_manager
from tests.conftest import CSRF


def with_job_manager(app: FastAPI, settings: Settings) -> FastAPI:
    original = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[None]:
        async with original(app_):
            if hasattr(app_.state, "jobs"):
                yield
                return
            with running_job_manager(app_.state.engine, app_.state.hub, settings.data_dir,
                                     stop_grace=1.0) as app_.state.jobs:
                yield

    app.router.lifespan_context = lifespan
    return app


def make_client(settings: Settings) -> TestClient:
    app = with_job_manager(create_app(settings), settings)
    headers = {"Authorization": f"Bearer {app.state.token}", **CSRF}
    return TestClient(app, base_url="http://127.0.0.1:8765", headers=headers)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with make_client(settings) as test_client:
        yield test_client
