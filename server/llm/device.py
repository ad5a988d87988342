"""Chats and LLM benchmarks on a paired device, through its agent.

The exported folder is pushed to the project's session on the device with the deploy's own
file push, limited to that folder (sha256 per file; the device's ledger and the hash cache here
keep an unchanged model from travelling again). The agent runs the same model process as this
machine (``device_bridge/llm/worker.py``) and streams ``llm.token`` / ``llm.progress`` and a final
``llm.done`` back; the figures in it are measured on the device.
"""

import asyncio
import contextlib
import json
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from device_bridge import protocol as p
from device_bridge.deploy import SyncReport, deploy
from device_bridge.errors import BridgeError
from device_bridge.links import Session as HubSession
from device_bridge.sync import HashCache
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Invalid, Unavailable
from server.devices.bridge import DeviceBridge, app_error
from server.modeltools.progress import PREFIX
from server.modeltools.runner import LineHandler, Outcome

STOP_GRACE_S = 30.0


class DeviceLlm:
    """The services' ``device_llm``; one per server."""

    def __init__(self, bridge: DeviceBridge, loop: asyncio.AbstractEventLoop) -> None:
        self._bridge, self._loop = bridge, loop
        self._cache = HashCache()
        self._running: dict[str, tuple[HubSession, str]] = {}

    async def push(self, project_id: str, root: Path, device_id: str, folder: Path) -> tuple[HubSession, str]:
        """The session on the device and the model's path there, its files pushed if changed."""
        session = await self._bridge.attach(project_id, device_id)
        root = root.resolve()
        rel = folder.resolve().relative_to(root).as_posix()
        if rel == ".":
            raise Invalid("put the exported model in a folder of its own to run it on a device",
                          code=ErrorCode.BAD_LLM_MODEL)
        try:
            report: SyncReport = await deploy(self._bridge.hub, project_id, session.sid, root,
                                              self._cache, only=rel)
        except BridgeError as exc:
            raise app_error(exc) from exc
        if report.failed:
            raise Unavailable(f"the model's files did not reach the device: {', '.join(report.failed)}",
                              code=ErrorCode.PUSH_FAILED)
        return session, rel

    async def call(self, session: HubSession, message: p.LlmChat | p.LlmBench, key: str,
                   on_token: Callable[[str], None] | None = None,
                   on_progress: Callable[[float, str], None] | None = None) -> dict[str, Any]:
        """Send one request and follow its replies to ``llm.done``; ``key`` names it for a stop."""
        stream: asyncio.Queue[Any] = asyncio.Queue()
        session.streams[message.rid] = stream
        self._running[key] = (session, message.rid)
        try:
            await self._send(session, message)
            while True:
                try:
                    reply = await stream.get()
                except asyncio.CancelledError:  # the caller left: do not let the device go on
                    with contextlib.suppress(AppError):
                        await asyncio.shield(self._send(session, p.LlmStop(sid=session.sid,
                                                                          rid=message.rid)))
                    raise
                if isinstance(reply, BridgeError):
                    raise app_error(reply)
                if isinstance(reply, p.LlmToken) and on_token is not None:
                    on_token(reply.text)
                elif isinstance(reply, p.LlmProgress) and on_progress is not None:
                    on_progress(reply.fraction, reply.stage)
                elif isinstance(reply, p.LlmDone):
                    return _result(reply)
        finally:
            session.streams.pop(message.rid, None)
            self._running.pop(key, None)

    async def stop(self, key: str) -> bool:
        running = self._running.get(key)
        if running is None:
            return False
        session, rid = running
        await self._send(session, p.LlmStop(sid=session.sid, rid=rid))
        return True

    async def _send(self, session: HubSession, message: BaseModel) -> None:
        try:
            await self._bridge.hub.link_for(session).send(message)
        except BridgeError as exc:
            raise app_error(exc) from exc

    def bench_outcome(self, project_id: str, root: str, worker: dict[str, Any],
                      cancel: threading.Event, on_line: LineHandler | None) -> Outcome:
        """An ``llm-bench`` tool run on a device, from a model-tools pool thread."""
        key = f"run-{secrets.token_hex(8)}"
        job = asyncio.run_coroutine_threadsafe(
            self._bench(project_id, Path(root), worker, key, on_line), self._loop)
        try:
            while not job.done():
                if cancel.wait(0.2):
                    asyncio.run_coroutine_threadsafe(self.stop(key), self._loop).result(STOP_GRACE_S)
                    break
            return Outcome("succeeded", result=job.result(STOP_GRACE_S))
        except (AppError, TimeoutError) as exc:
            job.cancel()
            error = exc.detail if isinstance(exc, AppError) else "the device did not answer in time"
            return Outcome("cancelled" if cancel.is_set() else "failed", error=error)

    async def _bench(self, project_id: str, root: Path, worker: dict[str, Any], key: str,
                     on_line: LineHandler | None) -> dict[str, Any]:
        session, rel = await self.push(project_id, root, worker["device_id"], Path(worker["model"]))
        message = p.LlmBench(sid=session.sid, rid=secrets.token_hex(8), model=rel,
                             threads=worker["threads"], prompt_tokens=worker["prompt_tokens"],
                             gen_tokens=worker["gen_tokens"], repeats=worker["repeats"])

        def progress(fraction: float, stage: str) -> None:
            if on_line is not None:
                on_line(PREFIX + json.dumps({"fraction": round(fraction, 3), "stage": stage}))

        result = await self.call(session, message, key, on_progress=progress)
        info = self._bridge.hub.online_devices().get(worker["device_id"])
        return {"threads": worker["threads"], "repeats": worker["repeats"],
                "device": {"id": worker["device_id"], "name": info.name if info else ""}, **result}


def _result(done: p.LlmDone) -> dict[str, Any]:
    if done.ok:
        return done.result
    message = done.error or "the device could not run the model"
    if done.code in ("no_mnn_llm", "llm_crashed", "llm_busy"):
        raise Unavailable(message, code=done.code)
    raise Invalid(message, code=done.code or ErrorCode.LLM_FAILED)
