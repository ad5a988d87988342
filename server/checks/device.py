"""A budget's latency and memory on a paired device, measured there by its agent (and a pipeline
budget's run, done there as a pipeline run with a ``device_id``).

The budget's ``device`` names a device the project's owner may use. The model file alone is
pushed to the project's session on the device (an unchanged file does not travel again) and the
agent benchmarks it as for "Benchmark on device" (``bench.start``); the request's ``rid`` brings
its ``bench.result`` back here instead of to the project's tabs. The figures are the device's.
"""

import asyncio
import secrets
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.errors import BridgeError
from device_bridge.links import Session as HubSession
from device_bridge.sync import HashCache
from server.checks.measure import WARMUP, MeasureFailed
from server.checks.models import Budget, Metric
from server.checks.pipeline_budgets import PipelineBudget
from server.core.errors import AppError
from server.devices import service as devices
from server.devices.bridge import DeviceBridge
from server.files.paths import resolve
from server.modeltools.pipeline_device import DevicePipelines
from server.modeltools.runner import Outcome
from server.projects.models import Project
from server.users.models import User

TIMEOUT_S = 600.0


class DeviceBench:
    """The services' ``device_bench``; one per server."""

    def __init__(self, bridge: DeviceBridge, engine: Engine, loop: asyncio.AbstractEventLoop) -> None:
        self._bridge, self._engine, self._loop = bridge, engine, loop
        self._cache = HashCache()
        self._pipelines = DevicePipelines(bridge, loop)

    def for_project(self, project: Project) -> "ProjectDevices":
        return ProjectDevices(self, project)

    def measure(self, project: Project, budget: Budget, model: str) -> dict[Metric, float]:
        """From a worker thread: the device's median latency and, if its agent reports it, memory."""
        job = asyncio.run_coroutine_threadsafe(self._bench(project, budget, model), self._loop)
        try:
            return job.result(TIMEOUT_S + 30)
        except TimeoutError:
            job.cancel()
            raise MeasureFailed(f"{budget.device!r} did not answer in {TIMEOUT_S:g} s") from None
        except (AppError, BridgeError) as exc:
            reason = exc.detail if isinstance(exc, AppError) else exc.message
            raise MeasureFailed(f"on {budget.device!r}: {reason}") from None

    def pipeline(self, project: Project, budget: PipelineBudget) -> dict[str, Any]:
        """From a worker thread: the budget's pipeline run on its device (the run's result)."""
        job = asyncio.run_coroutine_threadsafe(self._pipeline(project, budget), self._loop)
        try:
            outcome = job.result(TIMEOUT_S + 30)
        except TimeoutError:
            job.cancel()
            raise MeasureFailed(f"{budget.device!r} did not answer in {TIMEOUT_S:g} s") from None
        except AppError as exc:
            raise MeasureFailed(f"on {budget.device!r}: {exc.detail}") from None
        if outcome.status != "succeeded" or outcome.result is None:
            raise MeasureFailed(f"on {budget.device!r}: {outcome.error or outcome.status}")
        return outcome.result

    async def _pipeline(self, project: Project, budget: PipelineBudget) -> Outcome:
        device_id = await asyncio.to_thread(self._device_id, project, budget.device)
        root = Path(project.path)
        worker = {"model": str(resolve(root, budget.pipeline)), "device_id": device_id,
                  "variants": budget.variants,
                  "inputs": [str(resolve(root, i)) for i in budget.inputs] * budget.loops}
        return await self._pipelines.run(project.id, root, worker)

    def _device_id(self, project: Project, name: str) -> str:
        with Session(self._engine) as session:
            owner = session.get(User, project.owner_id)
            named = devices.usable_devices_named(session, owner, name) if owner else []
        online = [device.id for device in named if self._bridge.is_online(device.id)]
        if not named:
            raise MeasureFailed(f"no paired device is named {name!r}")
        if not online:
            raise MeasureFailed(f"the device {name!r} is offline")
        if len(online) > 1:
            raise MeasureFailed(f"{len(online)} online devices are named {name!r}: rename one")
        return online[0]

    async def _bench(self, project: Project, budget: Budget, model: str) -> dict[Metric, float]:
        device_id = await asyncio.to_thread(self._device_id, project, budget.device)
        session = await self._bridge.attach(project.id, device_id)
        report = await deploy(self._bridge.hub, project.id, session.sid, Path(project.path),
                              self._cache, only=model)
        if report.failed:
            raise MeasureFailed(f"{model} did not reach {budget.device!r}")
        start = p.BenchStart(sid=session.sid, rid=secrets.token_hex(8), model=model,
                             threads=budget.threads, loops=budget.loops, warmup=WARMUP, per_op=False)
        result = await self._request(session, start)
        if not result.ok or result.median_ms is None:
            raise MeasureFailed(f"on {budget.device!r}: {result.error or 'the benchmark failed'}")
        values: dict[Metric, float] = {"latency_ms": result.median_ms}
        if result.memory_mb is not None:
            values["memory_mb"] = result.memory_mb
        return values

    async def _request(self, session: HubSession, start: p.BenchStart) -> p.BenchResult:
        assert start.rid is not None
        stream: asyncio.Queue[Any] = asyncio.Queue()
        session.streams[start.rid] = stream
        try:
            await self._bridge.hub.link_for(session).send(start)
            reply = await asyncio.wait_for(stream.get(), TIMEOUT_S)
        finally:
            session.streams.pop(start.rid, None)
        if isinstance(reply, BridgeError):
            raise reply
        assert isinstance(reply, p.BenchResult)
        return reply


class ProjectDevices:
    """One project's side of ``DeviceBench``: what the checks call (``pipeline_budgets.DeviceSide``)."""

    def __init__(self, bench: DeviceBench, project: Project) -> None:
        self._bench, self._project = bench, project

    def __call__(self, budget: Budget, model: str) -> dict[Metric, float]:
        return self._bench.measure(self._project, budget, model)

    def pipeline(self, budget: PipelineBudget) -> dict[str, Any]:
        return self._bench.pipeline(self._project, budget)
