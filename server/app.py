"""Build the application: ``create_app(settings)`` and its lifespan, nothing else."""

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.gzip import GZipMiddleware
from sqlmodel import Session

from server import __version__
from server.api.body_limit import BodyLimit
from server.api.errors import install_error_handlers
from server.api.openapi import install_openapi
from server.api.routes import ROUTERS
from server.checks.device import DeviceBench
from server.core.config import Settings
from server.core.db import make_engine, migrate
from server.core.events import EventHub
from server.core.logs import install_redaction
from server.core.security import SecurityMiddleware, load_or_create_token
from server.devices import bridge as device_bridge
from server.files.watch import FileWatchers
from server.flow.device_records import DeviceRecords
from server.gitflow import fsmonitor
from server.lineage import record as lineage_record
from server.llm import prepare as llm_prepare
from server.llm.chat import ChatManager
from server.llm.device import DeviceLlm
from server.lsp.manager import LanguageServers
from server.modeltools.pipeline_device import DevicePipelines
from server.modeltools.prepare import register_preparer
from server.modeltools.service import create_tool_manager
from server.playground.local import LocalRuns
from server.projects.cloning import CloneJobs, drop_abandoned
from server.projects.sweep import sweep_leftovers
from server.sandbox import Sandbox
from server.terminal.manager import TerminalManager
from server.training.paidlc import register_pai_dlc
from server.training.ray.setup import register_ray
from server.training.service import JobManager
from server.users.connections import Connections
from server.users.service import ensure_local_user
from server.users.sessions import request_credential
from server.users.throttle import LoginThrottle
from server.web.assets import BundleFiles
from server.web.pages import router as pages_router

THREADS = 128


def create_app(settings: Settings) -> FastAPI:
    settings.ensure_dirs()
    token = load_or_create_token(settings.token_file)
    sandbox = Sandbox.from_settings(settings)
    # What a lower layer calls in a higher one, handed down here (docs/architecture.md, "Layers").
    register_preparer("llm-", llm_prepare.worker_args)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        install_redaction()
        # Saves, Git and DB calls run in threads and each waits on the disk: let many wait.
        anyio.to_thread.current_default_thread_limiter().total_tokens = THREADS
        engine = make_engine(settings.db_url)
        migrate(engine)
        with Session(engine) as session:
            ensure_local_user(session)
        # What a killed server left behind, off the start-up path: only files written before
        # this start are swept (server/core/leftovers.py).
        sweep = asyncio.create_task(run_in_threadpool(
            sweep_leftovers, engine, settings.data_dir, time.time()))
        hub = EventHub(queue_size=settings.ws_queue_size, replay_size=settings.replay_size)
        hub.bind_loop(asyncio.get_running_loop())
        app.state.engine = engine
        app.state.hub = hub
        app.state.watchers = FileWatchers(hub, enabled=settings.watch_files)
        fsmonitor.monitor.enabled = settings.git_status_watch
        app.state.tab_commands = {}
        app.state.tools = create_tool_manager(settings, engine, hub, sandbox=sandbox,
                                              record_run=lineage_record.record_tool_run)
        app.state.connections = Connections(engine, settings.access_check_seconds)
        app.state.terminals = TerminalManager(settings.terminal_keep_seconds,
                                              settings.terminals_per_user, app.state.connections)
        app.state.language_servers = LanguageServers(settings.lsp_keep_seconds, sandbox)
        app.state.chats = ChatManager(sandbox)
        devices = device_bridge.install(app.state, engine, DeviceRecords(engine, hub))
        app.state.connections.end_device_sessions = devices.end_unshared
        app.state.playground = LocalRuns(engine, hub, sandbox, settings.playground_local_max)
        app.state.user_tab_commands = {"playground": app.state.playground.commands_of}
        if settings.team:
            app.state.connections.start()
        app.state.device_llm = DeviceLlm(devices, asyncio.get_running_loop())
        app.state.tools.remote["llm-bench"] = app.state.device_llm.bench_outcome
        app.state.tools.remote["pipeline"] = DevicePipelines(devices, asyncio.get_running_loop()).outcome
        app.state.device_bench = DeviceBench(devices, engine, asyncio.get_running_loop())
        app.state.jobs = JobManager(engine, hub, settings.data_dir, per_user=settings.jobs_per_user,
                                    sandbox=sandbox, lineage=lineage_record)
        register_pai_dlc(app.state.jobs, engine, hub, settings.data_dir)
        register_ray(app.state.jobs, engine, hub, settings.data_dir)
        drop_abandoned(engine)
        app.state.clones = CloneJobs(engine, hub)
        app.state.jobs.start()
        app.state.login_throttle = LoginThrottle(
            settings.login_max_failures, settings.login_max_failures_per_address,
            settings.login_window_seconds)
        try:
            yield
        finally:
            await app.state.connections.close()
            await devices.close()
            await app.state.playground.close_all()
            await app.state.terminals.close_all()
            await app.state.language_servers.close_all()
            app.state.jobs.close()
            await run_in_threadpool(app.state.tools.close)
            await run_in_threadpool(app.state.chats.close)
            await run_in_threadpool(app.state.clones.close)
            await app.state.watchers.close()
            await sweep
            engine.dispose()

    app = FastAPI(title="MNN Workbench", version=__version__, lifespan=lifespan)
    app.state.settings = settings
    app.state.token = token
    app.state.sandbox = sandbox
    install_error_handlers(app)
    install_openapi(app)
    # The bundle first: a page load asks for a few dozen assets, none of which is an API route.
    settings.webui_dist.mkdir(parents=True, exist_ok=True)
    app.mount("/static", BundleFiles(directory=settings.webui_dist, check_dir=False), name="static")
    for router in ROUTERS:
        app.include_router(router)
    app.include_router(pages_router)
    # Level 1: dynamic answers (search streams, file reads) compress nearly as small as at 9 for a
    # fraction of the CPU; the UI's bundles are served precompressed.
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=1)
    app.add_middleware(BodyLimit, max_bytes=settings.json_body_max_bytes)
    app.add_middleware(SecurityMiddleware, settings=settings, token=token, credential=request_credential)
    return app
