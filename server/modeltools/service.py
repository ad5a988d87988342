"""Tool runs as durable rows, executed by a bounded pool of contained worker processes.

One ``ToolManager`` is the services' ``tools``. A run is written as ``queued`` before its
worker is submitted, ``running`` when the worker starts and final when it ends; every transition
is published on the project's ``tools`` channel, with progress and log lines in between.
"""

import logging
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from server.core.config import Settings
from server.core.db import until_stored, utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, NotFound
from server.core.events import EventHub
from server.files.events import ChangedPath, FilesChanged
from server.files.paths import resolve
from server.modeltools import prepare, specs
from server.modeltools.events import ToolLogLine, ToolProgress, ToolRunChanged
from server.modeltools.models import ACTIVE, ToolLog, ToolRun, ToolRunPublic
from server.modeltools.pool import RunHandle, WorkerPool
from server.modeltools.progress import parse as parse_progress
from server.modeltools.runner import Limits, LineHandler, Outcome, SpareRecipe, WorkerSpec
from server.projects import service as projects
from server.projects.models import Project
from server.sandbox import Sandbox
from server.users.models import User
from server.users.quota import Quota

log = logging.getLogger(__name__)

# (project id, project folder, worker arguments, cancel, on_line) -> the run's outcome
DeviceRun = Callable[[str, str, dict[str, Any], threading.Event, LineHandler | None], Outcome]
MAX_LOG_EVENTS = 2000
DEFAULT_WORKERS = 2
LOG_PAGE_BYTES = 256 * 1024


def to_public(run: ToolRun) -> ToolRunPublic:
    return ToolRunPublic.model_validate(run, from_attributes=True)


# What a run that succeeded leaves in the lineage (engine, run id, project root, the worker's
# result): ``server.lineage.record.record_tool_run``, handed in by ``create_app`` (the lineage
# sits above the model tools whose runs it links, docs/architecture.md, "Layers").
RunRecorder = Callable[[Engine, str, str, dict[str, Any]], None]


class ToolManager:
    """Starts, tracks, cancels and reconciles tool runs."""

    def __init__(
        self,
        engine: Engine,
        hub: EventHub,
        runs_dir: Path,
        *,
        per_user: int,
        sandbox: Sandbox,
        workers: int = DEFAULT_WORKERS,
        limits: Limits | None = None,
        record_run: RunRecorder,
        allow_remote_code: bool = False,
        sandboxed_spare: bool = False,
    ) -> None:
        self._engine, self._hub, self._runs_dir = engine, hub, runs_dir
        self._record_run = record_run
        self._sandboxed_spare = sandboxed_spare
        self._sandbox = sandbox
        self._allow_remote_code = allow_remote_code
        # Queued and running runs by the user who started them: the pool is shared.
        self._quota = Quota("active tool runs", ErrorCode.TOOL_RUN_LIMIT, per_user)
        self._limits = limits or Limits()
        self._pool = WorkerPool(size=workers, limits=self._limits)
        self._handles: dict[str, RunHandle] = {}
        self._spec_sources: dict[str, str] = {}  # run id → the model whose spec its output takes
        self._lock = threading.Lock()
        # tool → how a run with a ``device_id`` is done on that device (set up with the devices)
        self.remote: dict[str, DeviceRun] = {}

    def reconcile(self) -> int:
        """Runs left queued or running by a previous server become failed; returns how many."""
        with Session(self._engine) as session:
            result = session.execute(
                update(ToolRun)
                .where(col(ToolRun.status).in_(ACTIVE))
                .values(status="failed", error="server restarted", finished_at=utcnow())
            )
            session.commit()
            return int(getattr(result, "rowcount", 0) or 0)

    def start(self, session: Session, project: Project, tool: str, body: dict[str, Any],
              owner: str) -> ToolRunPublic:
        self._sandbox.require()  # before the input is read: nothing of it runs here anyway
        args, from_spec = prepare.spec_shapes(tool, project.path, prepare.parse(tool, body))
        args, preprocessing = prepare.spec_preprocessing(project.path, args)
        worker = prepare.worker_args(tool, project.path, args, self._allow_remote_code,
                                     taken=active_outputs(session, project))
        stored = args.model_dump(exclude_none=True)
        if worker.get("output"):
            stored["output"] = prepare.relative(project.path, Path(worker["output"]))
        if from_spec:
            stored["shapes_from_spec"] = from_spec
        if preprocessing:
            stored["preprocessing_from_spec"] = preprocessing
        return self.launch(session, project, tool, stored, worker, owner)

    def launch(
        self, session: Session, project: Project, tool: str, stored: dict[str, Any], worker: dict[str, Any],
        owner: str, readable: tuple[Path, ...] = (),
    ) -> ToolRunPublic:
        """Record and start a run whose worker arguments are already checked and absolute;
        ``stored`` is what the run shows (project-relative). It counts against ``owner``'s (a
        user id) cap until it ends. ``readable`` names files outside the project the worker
        reads (a model taken out of Git)."""
        self._sandbox.require()
        run = ToolRun(project_id=project.id, tool=tool, args=stored, log_path="")
        if tool in ("convert", "quantize"):  # its output gets its own spec from this model's
            self._spec_sources[run.id] = stored["model"]
        self._quota.take(owner, run.id)
        run.log_path = str(self._runs_dir / run.id / "worker.log")
        session.add(run)
        session.commit()
        session.refresh(run)
        public = to_public(run)
        self._publish(public)
        spec = WorkerSpec(tool, worker, self._runs_dir / run.id, self._limits,
                          wrap=self._wrap(self._runs_dir / run.id, Path(project.path), readable),
                          spare=self._spare(Path(project.path), readable))
        device_run = self.remote.get(tool) if worker.get("device_id") else None
        handle = self._pool.submit(
            spec,
            on_start=lambda: self._started(run.id),
            on_line=_LineRelay(self._hub, project.id, run.id),
            remote=device_run and partial(device_run, project.id, project.path, worker),
        )
        with self._lock:
            self._handles[run.id] = handle
        handle.future.add_done_callback(lambda future: self._finished(run.id, project.path, future.result()))
        return public

    def _wrap(self, run_dir: Path, root: Path,
              readable: tuple[Path, ...] = ()) -> Callable[[list[str]], list[str]] | None:
        """A worker sees its run's folder and its project (inputs and outputs), no network:
        it parses untrusted models."""
        if self._sandbox.state == "off":
            return None
        run_dir.mkdir(parents=True, exist_ok=True)
        policy = self._sandbox.for_tool(run_dir, writable=(run_dir, root), readable=readable)
        return partial(self._sandbox.wrap, policy=policy)

    def _spare(self, root: Path, readable: tuple[Path, ...]) -> SpareRecipe | None:
        """A sandboxed run may take a spare started in the same sandbox for its project (one
        that reads files from outside it starts its own); an unsandboxed run takes any."""
        if self._sandbox.state == "off" or readable or not self._sandboxed_spare:
            return None
        return SpareRecipe(str(root), partial(self._wrap, root=root))

    def cancel(self, session: Session, run: ToolRun) -> ToolRunPublic:
        if run.status not in ACTIVE:
            raise Conflict(f"the run is already {run.status}", code=ErrorCode.RUN_FINISHED)
        with self._lock:
            handle = self._handles.get(run.id)
        if handle is not None:
            handle.cancel.set()
        if run.status == "queued":
            self._quota.give_back(run.id)
            self._update(run.id, status="cancelled", error="cancelled", finished_at=utcnow())
        session.refresh(run)
        return to_public(run)

    def close(self) -> None:
        """Cancel what is queued or running and wait for the workers to be gone."""
        self._pool.shutdown()

    def _started(self, run_id: str) -> None:
        self._update(run_id, status="running", only_if="queued")

    def _finished(self, run_id: str, root: str, outcome: Outcome) -> None:
        with self._lock:
            self._handles.pop(run_id, None)
        self._quota.give_back(run_id)
        result = prepare.relative_result(root, outcome.result) if outcome.result else None
        source = self._spec_sources.pop(run_id, None)
        output = (result or {}).get("output")
        made = None
        if outcome.status == "succeeded":  # before the run shows as done: its lineage is there
            self._record_run(self._engine, run_id, root, result or {})
            if source is not None and isinstance(output, str):  # and so is its output's spec
                made = self._carry_spec(root, source, output)
        run = until_stored(lambda: self._update(
            run_id,
            status=outcome.status,
            result=result,
            error=(outcome.error or None) and outcome.error[:8000],
            error_code=outcome.code,
            finished_at=utcnow(),
        ), f"the end of tool run {run_id}")
        if run is not None and isinstance(output, str):
            changes: list[ChangedPath] = [{"kind": "added", "path": output}]
            if made is not None:
                changes.append({"kind": "added", "path": made})
            self._hub.emit(run.project_id, FilesChanged(changes=changes))

    @staticmethod
    def _carry_spec(root: str, model: str, output: str) -> str | None:
        """The output model's own spec, from its source's (``specs.carry``); a failure to write
        it is logged, never the run's failure."""
        try:
            made = specs.carry(resolve(root, model), resolve(root, output))
        except Exception:
            log.exception("could not write the model spec of %s", output)
            return None
        return None if made is None else prepare.relative(root, made)

    def _update(self, run_id: str, only_if: str | None = None, **values: Any) -> ToolRun | None:
        with Session(self._engine) as session:
            run = session.get(ToolRun, run_id)
            if run is None or (only_if is not None and run.status != only_if):
                return None
            if run.status == "cancelled" and values.get("status") != "cancelled":
                return None
            for key, value in values.items():
                setattr(run, key, value)
            session.add(run)
            session.commit()
            session.refresh(run)
            self._publish(to_public(run))
            return run

    def _publish(self, run: ToolRunPublic) -> None:
        self._hub.emit(run.project_id, ToolRunChanged(**run.model_dump()))


class _LineRelay:
    """Sends a worker's log lines and progress to the project's ``tools`` channel."""

    def __init__(self, hub: EventHub, project_id: str, run_id: str) -> None:
        self._hub, self._project_id, self._run_id, self._sent = hub, project_id, run_id, 0

    def __call__(self, line: str) -> None:
        progress = parse_progress(line)
        if progress is not None:
            self._hub.emit(self._project_id, ToolProgress(id=self._run_id, **progress))
        elif self._sent < MAX_LOG_EVENTS and line.strip():
            self._sent += 1
            self._hub.emit(self._project_id, ToolLogLine(id=self._run_id, line=line[:2000]))


def get_run(session: Session, user: User, run_id: str, need: str = "read") -> ToolRun:
    """A run the user may see (or, with ``need="run"``, cancel): checked on its project."""
    run = session.get(ToolRun, run_id)
    if run is None:
        raise NotFound("no such tool run", code=ErrorCode.RUN_NOT_FOUND)
    projects.get_project(session, user, run.project_id, need)
    return run


def active_outputs(session: Session, project: Project) -> set[str]:
    """The models (absolute paths) that the project's queued and running runs will write."""
    query = select(ToolRun).where(ToolRun.project_id == project.id, col(ToolRun.status).in_(ACTIVE))
    outputs = (run.args.get("output") for run in session.exec(query))
    return {str(resolve(project.path, rel)) for rel in outputs if isinstance(rel, str)}


def list_runs(session: Session, project: Project, limit: int = 100) -> list[ToolRunPublic]:
    query = (
        select(ToolRun)
        .where(ToolRun.project_id == project.id)
        .order_by(col(ToolRun.created_at).desc())
        .limit(limit)
    )
    return [to_public(run) for run in session.exec(query)]


def read_log(run: ToolRun, offset: int = 0) -> ToolLog:
    path = Path(run.log_path)
    data = b""
    if path.is_file():
        with path.open("rb") as handle:
            handle.seek(max(0, offset))
            data = handle.read(LOG_PAGE_BYTES)
    next_offset = max(0, offset) + len(data)
    complete = run.status not in ACTIVE and (not path.is_file() or next_offset >= path.stat().st_size)
    return ToolLog(
        offset=offset,
        next_offset=next_offset,
        text=data.decode("utf-8", "replace"),
        complete=complete,
    )


def create_tool_manager(
    settings: Settings,
    engine: Engine,
    hub: EventHub,
    *,
    sandbox: Sandbox,
    record_run: RunRecorder,
    workers: int = DEFAULT_WORKERS,
    limits: Limits | None = None,
) -> ToolManager:
    """The services' ``tools``, with runs of a previous server reconciled."""
    runs_dir = settings.data_dir / "tool-runs"
    manager = ToolManager(engine, hub, runs_dir, per_user=settings.tool_runs_per_user, sandbox=sandbox,
                          workers=workers, limits=limits, record_run=record_run,
                          allow_remote_code=settings.llm_allow_remote_code,
                          sandboxed_spare=settings.tool_spare_sandboxed)
    manager.reconcile()
    return manager
