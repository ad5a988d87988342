"""One session on the device: a project's folder, its sync state, its run and its MNN tasks."""

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from device_bridge.agent.files import SyncReceiver
from device_bridge.agent.llm_tasks import LlmTasks
from device_bridge.agent.process import Run
from device_bridge.agent.tools import MnnTask

Message = dict[str, Any]


def folder_name(project: str) -> str:
    """A project's folder on the device; kept after a session closes so a re-deploy is quick."""
    if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", project):
        return project
    return hashlib.sha256(project.encode()).hexdigest()[:32]


class Session:
    def __init__(self, sid: str, project: str, base: Path, send: Callable[[Message], None]):
        self.sid = sid
        self.project = project
        home = base / folder_name(project)
        self.cwd = home / "files"
        self._send = send
        self._sync = SyncReceiver(self.cwd, home / "ledger.json")
        self._run: Run | None = None
        self._task = MnnTask(sid, self.cwd, send)
        self._llm = LlmTasks(sid, self.cwd, send)

    def _error(self, code: str, message: str) -> None:
        self._send({"type": "error", "sid": self.sid, "code": code, "message": message})

    def manifest(self, msg: Message) -> None:
        need, deleted, refused = self._sync.plan(msg["files"], prune=msg["prune"])
        if refused:
            self._error("unsafe_path", "refused unsafe paths: " + ", ".join(refused[:20]))
        self._send({"type": "sync.need", "sid": self.sid, "paths": need, "deleted": deleted})

    def chunk(self, header: Message, payload: bytes) -> None:
        self._sync.chunk(header, payload)

    def sync_done(self, _msg: Message) -> None:
        written, failed = self._sync.finish()
        self._send({"type": "sync.done", "sid": self.sid, "written": written, "failed": failed})

    async def run(self, msg: Message) -> None:
        if self._run is not None and self._run.running:
            self._error("busy", "a program is already running in this session")
            return
        argv, env = msg["argv"], msg["env"]
        if not argv or not all(isinstance(a, str) for a in argv) or not all(
            isinstance(v, str) for v in env.values()
        ):
            self._error("bad_command", "argv and env values must be strings")
            return
        self._run = Run(self.sid, self.cwd, self._send)
        try:
            await self._run.start(argv, env, msg["debug"])
        except OSError as exc:
            self._run = None
            self._error("run_failed", f"cannot start {argv[0]!r}: {exc}")

    async def stop(self, _msg: Message | None = None) -> None:
        if self._run is not None:
            await self._run.stop()

    async def stdin(self, msg: Message) -> None:
        if self._run is not None:
            await self._run.stdin(msg["text"], msg["eof"])

    def dap(self, msg: Message) -> None:
        if self._run is None or not self._run.running:
            self._error("not_running", "no program is being debugged in this session")
            return
        self._run.dap(msg["msg"])

    async def mnn_task(self, msg: Message) -> None:
        await self._task.start(msg)

    def watch_continue(self, _msg: Message) -> None:
        self._task.resume()

    def watch_stop(self, _msg: Message) -> None:
        self._task.stop()

    def pipeline_stop(self, msg: Message) -> None:
        self._task.stop_pipeline(msg["rid"])

    def llm_start(self, msg: Message) -> None:
        self._llm.start(msg)

    def llm_stop(self, msg: Message) -> None:
        self._llm.stop(msg)

    async def close(self) -> None:
        self._task.stop()
        await self._llm.close()
        await self.stop()
