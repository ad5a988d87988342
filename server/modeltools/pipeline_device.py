"""A ``pipeline`` tool run with a ``device_id``: done on that paired device by its agent.

The pipeline's folder and the inputs are pushed to the project's session on the device (an
unchanged file does not travel again; a pipeline at the project's top pushes the project, as a
deploy does), the agent runs ``device_bridge/runtime/pipeline_batch.py`` there in a child
process (``pipeline.start``) and its ``pipeline.result`` comes back by ``rid``: the same JSON as a
run here, with the device named and the times the device's. A cancel sends ``pipeline.stop``: the
device stops after its current stage and answers with the inputs it did, and the run ends
``cancelled`` with them. A device lost mid-run ends the run ``failed`` with ``device_offline``.
"""

import asyncio
import json
import secrets
import threading
from concurrent.futures import CancelledError, Future
from pathlib import Path
from typing import Any

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.errors import BridgeError
from device_bridge.links import Session as HubSession
from device_bridge.runtime import pipeline_eval
from device_bridge.sync import HashCache
from server.core.error_codes import ErrorCode
from server.core.errors import AppError
from server.devices.bridge import DeviceBridge, app_error
from server.modeltools.progress import PREFIX
from server.modeltools.runner import LineHandler, Outcome

TIMEOUT_S = 1800.0
STOP_GRACE_S = 60.0  # how long a cancelled run waits for the device's partial result


class _Started:
    """The pipeline a run sent to the device, once sent: what a cancel asks to stop."""

    def __init__(self) -> None:
        self.stop: p.PipelineStop | None = None
        self.session: HubSession | None = None


class DevicePipelines:
    """One per server; ``outcome`` is the tool manager's remote run."""

    def __init__(self, bridge: DeviceBridge, loop: asyncio.AbstractEventLoop) -> None:
        self._bridge, self._loop = bridge, loop
        self._cache = HashCache()

    def outcome(self, project_id: str, root: str, worker: dict[str, Any],
                cancel: threading.Event, on_line: LineHandler | None) -> Outcome:
        """From a model-tools pool thread: the run on the device, or why it could not be."""
        started = _Started()
        job = asyncio.run_coroutine_threadsafe(
            self.run(project_id, Path(root), worker, on_line, started), self._loop)
        try:
            while not job.done():
                if cancel.wait(0.2):
                    return self._cancelled(job, started)
            return job.result()
        except AppError as exc:
            return Outcome("failed", error=exc.detail, code=exc.code)
        except TimeoutError:
            return Outcome("failed", error=f"the device did not answer in {TIMEOUT_S:g} s",
                           code=ErrorCode.DEVICE_TIMEOUT)

    def _cancelled(self, job: "Future[Outcome]", started: _Started) -> Outcome:
        """Stop the device's pipeline and wait a while for its partial result; before it was
        sent (or with no answer in ``STOP_GRACE_S``) the run just ends."""
        stop, session = started.stop, started.session
        if stop is not None and session is not None:
            asyncio.run_coroutine_threadsafe(self._bridge.hub.link_for(session).send(stop), self._loop)
            try:
                outcome = job.result(STOP_GRACE_S)
            except (AppError, TimeoutError, CancelledError):
                outcome = None
            if outcome is not None:  # cancelled with its partial result, or done before the stop
                return outcome
        job.cancel()
        return Outcome("cancelled", error="cancelled")

    async def _push(self, project_id: str, session: HubSession, root: Path, paths: list[str]) -> None:
        for rel in paths:
            report = await deploy(self._bridge.hub, project_id, session.sid, root, self._cache,
                                  only=None if rel == "." else rel)
            if report.failed:
                raise app_error(BridgeError(f"{', '.join(report.failed[:5])} did not reach the device"))

    async def run(self, project_id: str, root: Path, worker: dict[str, Any],
                  on_line: LineHandler | None = None, started: _Started | None = None) -> Outcome:
        """The run on ``worker["device_id"]``; a device that cannot be reached is ``AppError``.
        A run the device stopped (``started.stop`` sent) is ``cancelled`` with what it did."""
        root = root.resolve()
        pipeline = Path(worker["model"]).resolve().relative_to(root)
        inputs = [Path(i).resolve().relative_to(root) for i in worker["inputs"]]
        folder = pipeline.parent
        wanted = [folder.as_posix()] + [
            i.as_posix() for i in inputs if folder != Path(".") and not i.is_relative_to(folder)
        ]
        if on_line is not None:
            on_line(PREFIX + json.dumps({"fraction": 0.0, "stage": "pushing to the device"}))
        session = await self._bridge.attach(project_id, worker["device_id"])
        try:
            await self._push(project_id, session, root, wanted)
        except BridgeError as exc:
            raise app_error(exc) from exc
        if on_line is not None:
            on_line(PREFIX + json.dumps({"fraction": 0.1, "stage": "running on the device"}))
        start = p.PipelineStart(sid=session.sid, rid=secrets.token_hex(8), pipeline=pipeline.as_posix(),
                                inputs=[i.as_posix() for i in inputs], variants=worker.get("variants") or {})
        reply = await self._request(session, start, started)
        if not reply.ok or reply.result is None:
            return Outcome("failed", error=reply.error or "the device could not run the pipeline",
                           code=reply.code or ErrorCode.PIPELINE_FAILED)
        info = self._bridge.hub.online_devices().get(worker["device_id"])
        device = {"id": worker["device_id"], "name": info.name if info else ""}
        result = {**reply.result, "device": device}
        if result.get("stopped"):
            return Outcome("cancelled", result=result, error="cancelled")
        if worker.get("evaluation"):
            result["evaluation"] = pipeline_eval.score(result, worker["evaluation"])
        return Outcome("succeeded", result=result)

    async def _request(self, session: HubSession, start: p.PipelineStart,
                       started: _Started | None) -> p.PipelineResult:
        stream: asyncio.Queue[Any] = asyncio.Queue()
        session.streams[start.rid] = stream
        try:
            await self._bridge.hub.link_for(session).send(start)
            if started is not None:
                started.session = session
                started.stop = p.PipelineStop(sid=session.sid, rid=start.rid)
            reply = await asyncio.wait_for(stream.get(), TIMEOUT_S)
        except BridgeError as exc:
            raise app_error(exc) from exc
        finally:
            session.streams.pop(start.rid, None)
        if isinstance(reply, BridgeError):
            raise app_error(reply)
        assert isinstance(reply, p.PipelineResult)
        return reply
