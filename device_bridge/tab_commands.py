"""Commands a tab sends on its websocket (envelope ``type`` + ``data``) for its device sessions.

Failures never raise to the caller: they are published to the project as ``devices``/``error``
with the command's type as ``ref``, so a tab socket stays up whatever a tab sends.
"""

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.errors import BadCommand, BridgeError, DeviceOffline
from device_bridge.hub import DeviceHub
from device_bridge.sync import HashCache
from device_bridge.tab_events import DeviceErrorEvent

RootResolver = Callable[[str], Awaitable[Path]]
AttachCheck = Callable[[str, str], Awaitable[bool]]

FORWARDED: dict[str, type[BaseModel]] = {
    "run.start": p.RunStart,
    "run.stop": p.RunStop,
    "log.stdin": p.RunStdin,
    "dap": p.Dap,
    "bench.start": p.BenchStart,
    "watch.start": p.WatchStart,
    "watch.continue": p.WatchContinue,
    "watch.stop": p.WatchStop,
}


class Attach(BaseModel):
    model_config = ConfigDict(extra="forbid")
    device_id: str = Field(min_length=1, max_length=64)


class SessionRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sid: p.Sid


class TabCommands:
    """``may_attach(project_id, device_id)`` decides whether a project may use a device."""

    def __init__(self, hub: DeviceHub, project_root: RootResolver,
                 may_attach: AttachCheck | None = None) -> None:
        self.hub = hub
        self._project_root = project_root
        self._may_attach = may_attach
        self._cache = HashCache()
        self._deploys: set[asyncio.Task[None]] = set()

    async def handle(self, project_id: str, type_: str, data: dict[str, Any]) -> None:
        if type_ == "sync.start":
            # a deploy takes a while; the tab's other commands (DAP) must not queue behind it
            task = asyncio.create_task(self._guarded(project_id, type_, data))
            self._deploys.add(task)
            task.add_done_callback(self._deploys.discard)
            return
        await self._guarded(project_id, type_, data)

    async def _guarded(self, project_id: str, type_: str, data: dict[str, Any]) -> None:
        try:
            await self._dispatch(project_id, type_, data)
        except ValidationError as exc:
            reason = BadCommand(f"bad {type_}: {exc.errors()[0]['msg']}")
            self._error(project_id, type_, data, reason)
        except BridgeError as exc:
            self._error(project_id, type_, data, exc)

    async def _dispatch(self, project_id: str, type_: str, data: dict[str, Any]) -> None:
        if type_ == "device.attach":
            device_id = Attach.model_validate(data).device_id
            if self._may_attach is not None and not await self._may_attach(project_id, device_id):
                raise DeviceOffline("no such device")
            await self.hub.open_session(project_id, device_id)
        elif type_ == "device.detach":
            await self.hub.close_session(project_id, SessionRef.model_validate(data).sid)
        elif type_ == "sync.start":
            sid = SessionRef.model_validate(data).sid
            root = await self._project_root(project_id)
            await deploy(self.hub, project_id, sid, root, self._cache)
        elif type_ in FORWARDED:
            wire_type = "run.stdin" if type_ == "log.stdin" else type_
            message = FORWARDED[type_].model_validate({**data, "type": wire_type})
            await self.hub.send(project_id, message)
        else:
            raise BadCommand(f"unknown device command {type_!r}")

    def _error(self, project_id: str, type_: str, data: dict[str, Any], exc: BridgeError) -> None:
        sid = data.get("sid") if isinstance(data.get("sid"), str) else None
        # not validated: the sid is the tab's own text, and an error's report must not fail
        self.hub.sink.emit(project_id, DeviceErrorEvent.model_construct(
            sid=sid, code=exc.code, message=exc.message, ref=type_))
