"""The contract between the job service and a training backend (docs/training.md, Backends).

A ``Runner`` runs jobs somewhere (this machine, a cloud cluster). The job row in the database is
the durable truth and belongs to the service: runners never touch the database, they report
every change through a ``JobSink``, which writes the row first and then tells the tabs.
"""

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.training.logfile import LOG_FILE, read_text

LOG_READ_LIMIT = 1024 * 1024

JobStatus = Literal["queued", "running", "succeeded", "failed", "stopped"]
ACTIVE_STATUSES: frozenset[str] = frozenset({"queued", "running"})


@dataclass(frozen=True)
class JobSpec:
    """Everything a runner needs to run (or resume) one job."""

    id: str
    project_id: str
    project_path: Path
    command: str
    config: dict[str, Any]
    interpreter: str
    job_dir: Path
    commit: str | None = None


@dataclass(frozen=True)
class ProcessRecord:
    """What the job row remembers about a running job's process, for restart reconciliation."""

    status: str
    pid: int | None
    pid_started_at: float | None


@dataclass(frozen=True)
class Transition:
    """A change of a job's status and the row fields that go with it."""

    status: JobStatus
    reason: str | None = None
    exit_code: int | None = None
    pid: int | None = None
    pid_started_at: float | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class LogChunk(BaseModel):
    """Log text from a byte offset; ``offset`` is where the next read starts."""

    text: str
    offset: int
    eof: bool


def log_chunk(job_dir: Path, since: int, active: bool) -> LogChunk:
    """A job's log from byte ``since``, at most ``LOG_READ_LIMIT`` of it; ``eof`` once the job
    is no longer followed (``active``) and everything has been read."""
    if since < 0:
        raise Invalid("offset must be >= 0", code=ErrorCode.BAD_OFFSET)
    path = job_dir / LOG_FILE
    text, offset = read_text(path, since, LOG_READ_LIMIT)
    size = path.stat().st_size if path.exists() else 0
    return LogChunk(text=text, offset=offset, eof=not active and offset >= size)


class Artifact(BaseModel):
    path: str
    size: int


class JobSink(Protocol):
    """Where runners report: status changes, live log batches and parsed metrics."""

    def transition(self, job_id: str, change: Transition) -> None: ...

    def log(self, job_id: str, offset: int, text: str, next_offset: int) -> None: ...

    def metrics(self, job_id: str, points: list[dict[str, Any]]) -> None: ...


class Runner(Protocol):
    """One training backend. ``submit`` and ``resume`` report through the sink they were given."""

    def submit(self, spec: JobSpec) -> None: ...

    def resume(self, spec: JobSpec, record: ProcessRecord) -> None: ...

    def poll(self, job_id: str) -> JobStatus | None: ...

    def logs(self, job_id: str, since: int) -> LogChunk: ...

    def stop(self, job_id: str) -> None: ...

    def artifacts(self, job_id: str) -> list[Artifact]: ...

    def close(self) -> None: ...
