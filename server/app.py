"""Build the application: ``create_app(settings)`` and its lifespan, nothing else."""

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.middleware.gzip import GZipMiddleware
from sqlalchemy.engine import Engine
from sqlmodel import Session

from server import __version__
from server.api.body_limit import BodyLimit
from server.api.errors import install_error_handlers
from server.api.openapi import install_openapi
from server.api.routes import ROUTERS
from server.api.services import CommandHandler, Services, services_of, store
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
from server.training.paidlc.runner import register_pai_dlc
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
        fsmonitor.monitor.enabled = settings.git_status_watch
        services = _build_services(settings, token, sandbox, engine, hub)
        store(app, services)
        if settings.team:
            services.connections.start()
        services.jobs.start()
        try:
            yield
        finally:
            await _close(services)
            await sweep
            engine.dispose()

    app = FastAPI(title="MNN Workbench", version=__version__, lifespan=lifespan)
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
    app.add_middleware(SecurityMiddleware, settings=settings, token=token, credential=request_credential,
                       engine=lambda scope: services_of(scope["app"]).engine)
    return app


def _build_services(settings: Settings, token: str, sandbox: Sandbox, engine: Engine,
                    hub: EventHub) -> Services:
    """Every long-lived service, each built once, wired to the ones it uses."""
    loop = asyncio.get_running_loop()
    tools = create_tool_manager(settings, engine, hub, sandbox=sandbox,
                                record_run=lineage_record.record_tool_run)
    connections = Connections(engine, settings.access_check_seconds)
    tab_commands: dict[str, CommandHandler] = {}
    devices = device_bridge.install(tab_commands, engine, DeviceRecords(engine, hub))
    connections.end_device_sessions = devices.end_unshared
    playground = LocalRuns(engine, hub, sandbox, settings.playground_local_max)
    device_llm = DeviceLlm(devices, loop)
    tools.remote["llm-bench"] = device_llm.bench_outcome
    tools.remote["pipeline"] = DevicePipelines(devices, loop).outcome
    jobs = JobManager(engine, hub, settings.data_dir, per_user=settings.jobs_per_user,
                      sandbox=sandbox, lineage=lineage_record)
    register_pai_dlc(jobs, engine, hub, settings.data_dir)
    register_ray(jobs, engine, hub, settings.data_dir)
    drop_abandoned(engine)
    return Services(
        settings=settings, token=token, sandbox=sandbox, engine=engine, hub=hub,
        watchers=FileWatchers(hub, enabled=settings.watch_files), tools=tools,
        connections=connections,
        terminals=TerminalManager(settings.terminal_keep_seconds, settings.terminals_per_user,
                                  connections),
        language_servers=LanguageServers(settings.lsp_keep_seconds, sandbox),
        chats=ChatManager(sandbox), devices=devices, playground=playground,
        device_llm=device_llm, device_bench=DeviceBench(devices, engine, loop), jobs=jobs,
        clones=CloneJobs(engine, hub),
        login_throttle=LoginThrottle(settings.login_max_failures,
                                     settings.login_max_failures_per_address,
                                     settings.login_window_seconds),
        tab_commands=tab_commands, user_tab_commands={"playground": playground.commands_of})


async def _close(services: Services) -> None:
    """Stop every service, in the order the lifespan always did."""
    await services.connections.close()
    await services.devices.close()
    await services.playground.close_all()
    await services.terminals.close_all()
    await services.language_servers.close_all()
    services.jobs.close()
    await run_in_threadpool(services.tools.close)
    await run_in_threadpool(services.chats.close)
    await run_in_threadpool(services.clones.close)
    await services.watchers.close()
