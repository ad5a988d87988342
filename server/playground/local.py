"""Playground runs on this machine, without a device agent (docs/playground.md, "On this
machine"): ``python -m device_bridge.playground.run . --live`` in the project's folder, in the
sandbox like a job, with the Playground panel as its screen and camera.

A tab drives it on channel ``playground`` (``run.start``, ``run.stdin``, ``run.stop``, each with
the tab's ``sid``); the run answers on channel ``log`` with the events of a device's run
(``run.started``, ``log``, ``run.exit``), so the panel reads both the same way. One run per
project: a new start stops the one before (a reloaded tab cannot reach its old run otherwise).
A start naming a ``pipeline`` (a ``.toml`` of the project) runs that pipeline on the tab's camera
instead (``device_bridge.runtime.pipeline_live``, docs/pipelines.md "On a camera"), the same way.
A person has at most ``MNNWB_PLAYGROUND_LOCAL_MAX`` runs at once over all projects (they are the
server's own processes); one more is refused with ``playground_limit``.
"""

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy.engine import Engine
from sqlmodel import Session

from device_bridge.protocol_base import Sid
from device_bridge.tab_events import DeviceErrorEvent, RunExitEvent, RunLogEvent, RunStartedEvent
from server.core.error_codes import ErrorCode
from server.core.errors import AppError
from server.core.events import Envelope, EventHub
from server.projects.models import Project
from server.sandbox import Sandbox, exit_status
from server.sandbox.command import REPO_ROOT
from server.training.runtime import resolve_interpreter

RUN_MODULE = ["-u", "-m", "device_bridge.playground.run", ".", "--live"]
PIPELINE_MODULE = ["-u", "-m", "device_bridge.runtime.pipeline_live"]
STOP_GRACE_SECONDS = 5.0
READ_CHUNK = 65536
HIDDEN_PREFIXES = ("MNNWB_",)


class RunRef(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sid: Sid


class RunStart(RunRef):
    pipeline: str | None = Field(default=None, min_length=1, max_length=4096)


class RunStdin(RunRef):
    text: str


class CommandError(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class LocalRun:
    sid: str
    project_id: str
    user_id: str
    process: asyncio.subprocess.Process
    sandboxed: bool
    ended: asyncio.Event = field(default_factory=asyncio.Event)


def run_env() -> dict[str, str]:
    """The server's environment without its own settings, with the workbench's code importable
    (the run imports ``device_bridge.playground``; the sandbox shows that folder read-only)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(HIDDEN_PREFIXES)}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def pipeline_file(root: Path, given: str) -> str:
    """A start's ``pipeline``: a ``.toml`` file of the project, as a path relative to it."""
    path = (root / given).resolve()
    if path.suffix != ".toml" or not path.is_relative_to(root.resolve()) or not path.is_file():
        raise CommandError(ErrorCode.BAD_COMMAND, f"{given}: not a pipeline file (.toml) of the project")
    return path.relative_to(root.resolve()).as_posix()


class LocalRuns:
    def __init__(self, engine: Engine, events: EventHub, sandbox: Sandbox, per_user: int = 2) -> None:
        self._engine = engine
        self._events = events
        self._sandbox = sandbox
        self._per_user = per_user
        self._runs: dict[str, LocalRun] = {}  # by project
        self._starting: dict[str, int] = {}  # by user: starts under way, counted against the cap
        self._tasks: set[asyncio.Task[None]] = set()

    def commands_of(self, user_id: str) -> Callable[[str, Envelope], Awaitable[None]]:
        """The channel's command handler for one person's tab (runs are counted per person)."""
        return lambda project_id, envelope: self.handle_tab_command(project_id, envelope, user_id)

    async def handle_tab_command(self, project_id: str, envelope: Envelope, user_id: str) -> None:
        """A tab's command on channel ``playground``; a failure is a ``devices``/``error`` event
        with the command's type as ``ref``, the socket stays up."""
        try:
            if envelope.type == "run.start":
                starting = RunStart.model_validate(envelope.data)
                await self.start(project_id, starting.sid, user_id, starting.pipeline)
            elif envelope.type == "run.stdin":
                command = RunStdin.model_validate(envelope.data)
                await self.stdin(project_id, command.sid, command.text)
            elif envelope.type == "run.stop":
                await self.stop(project_id, RunRef.model_validate(envelope.data).sid)
            else:
                raise CommandError(ErrorCode.BAD_COMMAND, f"unknown playground command {envelope.type!r}")
        except ValidationError as exc:
            self._error(project_id, envelope, ErrorCode.BAD_COMMAND,
                        f"bad {envelope.type}: {exc.errors()[0]['msg']}")
        except CommandError as exc:
            self._error(project_id, envelope, exc.code, str(exc))
        except AppError as exc:
            self._error(project_id, envelope, exc.code, exc.detail)

    def _error(self, project_id: str, envelope: Envelope, code: str, message: str) -> None:
        sid = envelope.data.get("sid") if isinstance(envelope.data.get("sid"), str) else None
        # not validated: the sid is the tab's own text, and an error's report must not fail
        self._events.emit(project_id, DeviceErrorEvent.model_construct(
            sid=sid, code=code, message=message, ref=envelope.type))

    def _command(self, project_id: str, pipeline: str | None = None) -> tuple[list[str], Path]:
        with Session(self._engine) as session:
            project = session.get(Project, project_id)
            if project is None:
                raise CommandError(ErrorCode.UNKNOWN_SESSION, "the project is gone")
            interpreter = resolve_interpreter(session, project).interpreter
        root = Path(project.path)
        module = RUN_MODULE if pipeline is None else [*PIPELINE_MODULE, pipeline_file(root, pipeline)]
        policy = self._sandbox.for_user_code(root, writable=(root,), interpreter=interpreter)
        return self._sandbox.wrap([interpreter, *module], policy), root

    def _reserve(self, project_id: str, user_id: str) -> None:
        """Count a start against the person's cap (the project's own run, which it replaces, is
        not counted); over it, ``playground_limit``."""
        running = sum(run.user_id == user_id and run.project_id != project_id for run in self._runs.values())
        if running + self._starting.get(user_id, 0) >= self._per_user:
            raise CommandError(
                ErrorCode.PLAYGROUND_LIMIT,
                f"at most {self._per_user} playground runs on this machine per person "
                "(MNNWB_PLAYGROUND_LOCAL_MAX); stop one first")
        self._starting[user_id] = self._starting.get(user_id, 0) + 1

    def _release(self, user_id: str) -> None:
        left = self._starting.get(user_id, 0) - 1
        if left > 0:
            self._starting[user_id] = left
        else:
            self._starting.pop(user_id, None)

    async def start(self, project_id: str, sid: str, user_id: str, pipeline: str | None = None) -> None:
        self._reserve(project_id, user_id)
        try:
            await self._launch(project_id, sid, user_id, pipeline)
        finally:
            self._release(user_id)

    async def _launch(self, project_id: str, sid: str, user_id: str, pipeline: str | None) -> None:
        previous = self._runs.get(project_id)
        if previous is not None:
            await self._end(previous)
        argv, root = await asyncio.to_thread(self._command, project_id, pipeline)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv, cwd=root, env=run_env(), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True)
        except OSError as exc:
            raise CommandError(ErrorCode.RUN_FAILED, f"cannot start the run: {exc.strerror or exc}") from exc
        run = LocalRun(sid, project_id, user_id, process, sandboxed=self._sandbox.state == "on")
        self._runs[project_id] = run
        self._events.emit(run.project_id, RunStartedEvent.model_validate(
            {"sid": run.sid, "pid": process.pid, "cwd": str(root)}))
        task = asyncio.create_task(self._follow(run))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _running(self, project_id: str, sid: str) -> LocalRun:
        run = self._runs.get(project_id)
        if run is None or run.sid != sid:
            raise CommandError(ErrorCode.NOT_RUNNING, "the playground is not running on this machine")
        return run

    async def stdin(self, project_id: str, sid: str, text: str) -> None:
        stream = self._running(project_id, sid).process.stdin
        assert stream is not None
        with contextlib.suppress(ConnectionError):  # it ended meanwhile: run.exit tells
            stream.write(text.encode())
            await stream.drain()

    async def stop(self, project_id: str, sid: str) -> None:
        await self._end(self._running(project_id, sid))

    async def _end(self, run: LocalRun) -> None:
        """SIGTERM to its group (the run's close callback runs), SIGKILL after a grace period."""
        self._signal(run, signal.SIGTERM)
        try:
            await asyncio.wait_for(run.ended.wait(), STOP_GRACE_SECONDS)
        except TimeoutError:
            self._signal(run, signal.SIGKILL)
            await run.ended.wait()

    @staticmethod
    def _signal(run: LocalRun, signum: int) -> None:
        if run.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.process.pid, signum)

    async def _follow(self, run: LocalRun) -> None:
        process = run.process
        assert process.stdout is not None and process.stderr is not None
        try:
            await asyncio.gather(self._relay(run, process.stdout, "stdout"),
                                 self._relay(run, process.stderr, "stderr"))
            code = await process.wait()
        finally:
            if self._runs.get(run.project_id) is run:
                del self._runs[run.project_id]
            if process.stdin is not None:
                process.stdin.close()
        status = exit_status(code) if run.sandboxed else code
        self._events.emit(run.project_id, RunExitEvent.model_validate(
            {"sid": run.sid, "code": status if status >= 0 else None,
             "signal": -status if status < 0 else None}))
        run.ended.set()

    async def _relay(self, run: LocalRun, stream: asyncio.StreamReader, name: str) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while chunk := await stream.read(READ_CHUNK):
            text = decoder.decode(chunk)
            if text:
                self._events.emit(run.project_id, RunLogEvent.model_validate(
                    {"sid": run.sid, "stream": name, "text": text}))

    async def close_all(self) -> None:
        for run in list(self._runs.values()):
            await self._end(run)
        await asyncio.gather(*self._tasks, return_exceptions=True)
