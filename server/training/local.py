"""The local runner: jobs run on this machine, in the project folder, one process session each.

Layout of ``<data_dir>/jobs/<id>/``: ``output.log`` (stdout and stderr), ``metrics.jsonl``
(parsed ``MNNWB_METRIC`` lines), ``exit.json`` (written by the wrapper when the command ends),
``spec.json`` (what ran where) and ``stop-requested``. Artifacts go to
``<project>/outputs/<id>/``, announced to the command as ``$MNNWB_OUTPUT_DIR``.
"""

import json
import os
import shlex
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, NotFound
from server.sandbox import Sandbox
from server.sandbox.limits import to_record
from server.training.logfile import rebuild_metrics
from server.training.process import JobProcess
from server.training.runner import (
    Artifact,
    JobSink,
    JobSpec,
    JobStatus,
    LogChunk,
    ProcessRecord,
    Transition,
    log_chunk,
)
from server.training.watcher import SPEC_FILE, JobWatcher, outcome
from server.training.watchers import Watchers
from server.training.wrapper import EXIT_FILE

PYTHON_NAMES = frozenset({"python", "python3"})
RESTART_LOST = "the job's process was gone when the server restarted and left no exit status"


class LocalConfig(BaseModel):
    """The ``config`` a local job accepts."""

    model_config = ConfigDict(extra="forbid")

    env: dict[str, str] = Field(default_factory=dict, description="extra environment variables")


def command_argv(command: str, interpreter: str) -> list[str]:
    """Split the command; a leading ``python`` means the project's interpreter."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise Invalid(f"cannot parse the command: {exc}", code=ErrorCode.BAD_COMMAND) from exc
    if not argv:
        raise Invalid("the command is empty", code=ErrorCode.BAD_COMMAND)
    if argv[0] in PYTHON_NAMES:
        if not os.access(interpreter, os.X_OK):
            raise Invalid(f"the project's interpreter {interpreter} is not an executable",
                          code=ErrorCode.BAD_INTERPRETER)
        argv[0] = interpreter
    return argv


def job_env(spec: JobSpec, config: LocalConfig, output_dir: Path) -> dict[str, str]:
    # The server's own settings are not the job's business.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNNWB_")}
    env.update(config.env)
    env["PATH"] = os.path.dirname(spec.interpreter) + os.pathsep + env.get("PATH", "")
    env.update(MNNWB_OUTPUT_DIR=str(output_dir), MNNWB_JOB_ID=spec.id, PYTHONUNBUFFERED="1")
    return env


class LocalRunner:
    """Runs jobs as local processes; see the module docstring for the files it keeps."""

    def __init__(self, sink: JobSink, jobs_dir: Path, sandbox: Sandbox, *,
                 stop_grace: float = 5.0) -> None:
        self._sandbox = sandbox
        self._sink = sink
        self._jobs_dir = jobs_dir
        self._stop_grace = stop_grace
        self._watchers: Watchers[JobWatcher] = Watchers()

    def submit(self, spec: JobSpec) -> None:
        try:
            config = LocalConfig.model_validate(spec.config)
        except ValidationError as exc:
            raise Invalid(f"bad local job config: {exc.errors()[0]['msg']}",
                          code=ErrorCode.BAD_CONFIG) from exc
        self._sandbox.require()
        argv = command_argv(spec.command, spec.interpreter)
        output_dir = spec.project_path / "outputs" / spec.id
        output_dir.mkdir(parents=True, exist_ok=True)
        spec.job_dir.mkdir(parents=True, exist_ok=True)
        record = {"argv": argv, "cwd": str(spec.project_path), "output_dir": str(output_dir),
                  "limits": to_record(self._sandbox.limits)}
        (spec.job_dir / SPEC_FILE).write_text(json.dumps(record))
        process = JobProcess.spawn(spec.job_dir, spec.project_path, self._sandboxed(spec, argv),
                                   job_env(spec, config, output_dir),
                                   sandboxed=self._sandbox.state == "on")
        self._sink.transition(spec.id, Transition(
            "running", pid=process.pid, pid_started_at=process.started_at, started_at=utcnow()))
        self._watch(spec, process, offset=0)

    def _sandboxed(self, spec: JobSpec, argv: list[str]) -> list[str]:
        """The job sees its project (outputs included) read-write and the interpreter's own
        environment read-only, wherever it lives."""
        project = spec.project_path
        policy = self._sandbox.for_user_code(project, writable=(project,),
                                             interpreter=spec.interpreter)
        return self._sandbox.wrap(argv, policy)

    def resume(self, spec: JobSpec, record: ProcessRecord) -> None:
        """Re-attach to a job a previous server started, or settle how it ended."""
        if record.pid is None or record.pid_started_at is None:
            self._sink.transition(spec.id, Transition(
                "failed", reason="the server stopped before the job's process started",
                finished_at=utcnow()))
            return
        spec.job_dir.mkdir(parents=True, exist_ok=True)
        offset = rebuild_metrics(spec.job_dir)
        process = JobProcess(record.pid, record.pid_started_at)
        self._watch(spec, process, offset=offset, lost_reason=RESTART_LOST)

    def _watch(self, spec: JobSpec, process: JobProcess, *, offset: int,
               lost_reason: str | None = None) -> None:
        extra = {"lost_reason": lost_reason} if lost_reason else {}
        watcher = JobWatcher(spec.id, spec.job_dir, process, self._sink, offset=offset,
                             on_end=self._watchers.forget, **extra)
        self._watchers.start(spec.id, watcher)

    def poll(self, job_id: str) -> JobStatus | None:
        if self._watchers.active(job_id):
            return "running"
        job_dir = self._jobs_dir / job_id
        return outcome(job_dir).status if (job_dir / EXIT_FILE).exists() else None

    def logs(self, job_id: str, since: int) -> LogChunk:
        return log_chunk(self._jobs_dir / job_id, since, self._watchers.active(job_id) is not None)

    def stop(self, job_id: str) -> None:
        watcher = self._watchers.active(job_id)
        if watcher is None:
            raise Conflict("the job is not running", code=ErrorCode.JOB_NOT_RUNNING)
        watcher.stop_job(self._stop_grace)

    def artifacts(self, job_id: str) -> list[Artifact]:
        try:
            record = json.loads((self._jobs_dir / job_id / SPEC_FILE).read_text())
        except FileNotFoundError as exc:
            raise NotFound("the job has no local files", code=ErrorCode.JOB_FILES_MISSING) from exc
        cwd, output_dir = Path(record["cwd"]), Path(record["output_dir"])
        found = sorted(p for p in output_dir.rglob("*") if p.is_file())
        return [Artifact(path=str(p.relative_to(cwd)), size=p.stat().st_size) for p in found]

    def close(self) -> None:
        """Stop following jobs; they keep running and the next server re-attaches to them."""
        self._watchers.close_all()
