"""A live server whose lifespan also runs the device bridge, as ``server/app.py`` will."""

import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
import uvicorn
from fastapi import FastAPI

from server.app import create_app
from server.core.config import Settings
from server.devices import bridge
from tests.conftest import LiveServer, _free_port


def with_device_bridge(app: FastAPI) -> FastAPI:
    original = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[None]:
        async with original(app_):
            if not hasattr(app_.state, "devices"):
                bridge.install(app_.state, app_.state.engine, app_.state.hub)
            yield

    app.router.lifespan_context = lifespan
    return app


@pytest.fixture
def device_server(settings: Settings) -> Iterator[LiveServer]:
    port = _free_port()
    settings.port = port
    app = with_device_bridge(create_app(settings))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", app.state.token, settings, server)
    finally:
        server.should_exit = True
        thread.join(timeout=15)
