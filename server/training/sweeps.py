"""Sweeps: one job definition run over a small grid of arguments, one job per combination.

``--lr 0.1,0.01 --batch 32,64`` makes four jobs whose commands end with each pair of values.
The sweep row remembers which job got which values; reading a sweep adds each job's status and
the last value of each metric it printed, for the table of final metrics.
"""

import itertools
import shlex
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, SecretStr
from sqlmodel import Session, col, select

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.gitflow.urlpolicy import UrlPolicy
from server.projects.models import Project
from server.training.logfile import read_metrics
from server.training.models import Job, JobCreate, Sweep
from server.training.runner import JobStatus
from server.training.service import JobManager, default_command

MAX_RUNS = 64


class SweepCreate(BaseModel):
    """``grid`` is flags each followed by comma-separated values: ``--lr 0.1,0.01 --batch 32``.
    The other fields are those of a job (``commit_and_push`` applies to the first job)."""

    backend: str = "local"
    command: str | None = Field(default=None, max_length=4096)
    grid: str = Field(min_length=1, max_length=4096)
    config: dict[str, Any] = Field(default_factory=dict)
    commit_and_push: bool = False
    message: str | None = Field(default=None, max_length=10000)
    author: str | None = Field(default=None, max_length=512)
    remote: str | None = Field(default=None, max_length=100)
    username: str | None = Field(default=None, max_length=512)
    password: SecretStr | None = None


class SweepRun(BaseModel):
    job_id: str
    args: dict[str, str]
    status: JobStatus | None
    final: dict[str, Any] = Field(description="the last value of each metric the job printed")


class SweepPublic(BaseModel):
    id: str
    project_id: str
    backend: str
    command: str
    grid: str
    created_at: datetime
    runs: list[SweepRun]


def parse_grid(grid: str) -> list[tuple[str, list[str]]]:
    """``[(flag, values), ...]``; every flag starts with ``-`` and has at least one value."""
    try:
        words = shlex.split(grid)
    except ValueError as exc:
        raise Invalid(f"cannot parse the grid: {exc}", code=ErrorCode.BAD_GRID) from exc
    if not words or len(words) % 2:
        raise Invalid("the grid is flags each followed by values: --lr 0.1,0.01 --batch 32,64",
                      code=ErrorCode.BAD_GRID)
    axes = []
    for flag, values in zip(words[::2], words[1::2], strict=True):
        choices = [v for v in values.split(",") if v]
        if not flag.startswith("-") or not choices:
            raise Invalid(f"bad grid entry {flag} {values}", code=ErrorCode.BAD_GRID)
        axes.append((flag, choices))
    if len({flag for flag, _ in axes}) != len(axes):
        raise Invalid("a flag appears twice in the grid", code=ErrorCode.BAD_GRID)
    return axes


def combinations(grid: str) -> list[dict[str, str]]:
    axes = parse_grid(grid)
    count = 1
    for _, values in axes:
        count *= len(values)
    if count > MAX_RUNS:
        raise Invalid(f"the grid makes {count} jobs; at most {MAX_RUNS}", code=ErrorCode.GRID_TOO_LARGE)
    flags = [flag for flag, _ in axes]
    return [dict(zip(flags, values, strict=True))
            for values in itertools.product(*(values for _, values in axes))]


def final_metrics(points: list[dict[str, Any]]) -> dict[str, Any]:
    final: dict[str, Any] = {}
    for point in points:
        final.update(point)
    return final


def create_sweep(jobs: JobManager, session: Session, project: Project, body: SweepCreate,
                 policy: UrlPolicy, owner: str) -> SweepPublic:
    """Submit one job per combination for ``owner`` (a user id); refused up front when they
    would not all fit under the owner's cap of active jobs."""
    base = body.command or default_command(project)
    runs = []
    grid = combinations(body.grid)
    jobs.ensure_room(owner, len(grid))
    for index, args in enumerate(grid):
        command = f"{base} {shlex.join(itertools.chain.from_iterable(args.items()))}"
        extra = body.model_dump(exclude={"grid", "command", "commit_and_push"})
        job = jobs.submit(session, project, JobCreate(
            **extra, command=command, commit_and_push=body.commit_and_push and index == 0),
            policy, owner)
        runs.append({"job_id": job.id, "args": args})
    sweep = Sweep(project_id=project.id, backend=body.backend, command=base, grid=body.grid,
                  runs=runs)
    session.add(sweep)
    session.commit()
    session.refresh(sweep)
    return read_sweep(jobs, session, sweep)


def read_sweep(jobs: JobManager, session: Session, sweep: Sweep) -> SweepPublic:
    runs = []
    for run in sweep.runs:
        job = session.get(Job, run["job_id"])
        points = read_metrics(Path(jobs.jobs_dir) / run["job_id"])
        runs.append(SweepRun(job_id=run["job_id"], args=run["args"],
                             status=job.status if job else None,  # type: ignore[arg-type]
                             final=final_metrics(points)))
    return SweepPublic(id=sweep.id, project_id=sweep.project_id, backend=sweep.backend,
                       command=sweep.command, grid=sweep.grid, created_at=sweep.created_at,
                       runs=runs)


def list_sweeps(jobs: JobManager, session: Session, project: Project) -> list[SweepPublic]:
    query = select(Sweep).where(Sweep.project_id == project.id).order_by(
        col(Sweep.created_at).desc())
    return [read_sweep(jobs, session, sweep) for sweep in session.exec(query)]
