"""Jobs: submit, list, read, stop, logs, metrics; the manager that owns the job rows.

The ``JobManager`` is the services' ``jobs``. It holds one runner per backend (a dict, so
other backends register theirs) and is the ``JobSink`` its runners report to: every status
change is written to the job row first, then published on the project's ``jobs`` channel;
log batches go to the ``log`` channel. At start it reconciles the rows left ``queued`` or
``running`` by an earlier server.
"""

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from dulwich.errors import NotGitRepository
from dulwich.repo import Repo
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from server.core.db import release, until_stored, utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Conflict, Invalid, NotFound, Unavailable
from server.core.events import EventHub
from server.gitflow.urlpolicy import UrlPolicy
from server.projects import service as projects
from server.projects.models import Project
from server.projects.templates import get_template
from server.sandbox import Sandbox
from server.training.events import JobLog, JobMetric, JobStatus
from server.training.local import LocalRunner
from server.training.logfile import read_metrics
from server.training.models import (
    Job,
    JobCreate,
    JobMetrics,
    JobPublic,
    VenvCreate,
    VenvStarted,
)
from server.training.runner import (
    ACTIVE_STATUSES,
    JobSpec,
    LogChunk,
    ProcessRecord,
    Runner,
    Transition,
)
from server.training.runtime import resolve_interpreter
from server.training.venv import VENV_DIR, check_can_create, create_venv
from server.users.models import User
from server.users.quota import Quota

# Runs before a backend's job row exists (e.g. commit and push for a cloud run); returns the
# commit the job runs and the config to store with it. A refusal raises an ``AppError``. Any push
# it makes follows the caller's Git URL policy.
Prepare = Callable[[Project, JobCreate, UrlPolicy], tuple[str | None, dict[str, Any]]]


def head_commit(path: Path) -> str | None:
    try:
        with Repo(str(path)) as repo:
            return repo.head().decode()
    except (NotGitRepository, KeyError):
        return None


def default_command(project: Project) -> str:
    command = get_template(project.template).default_command if project.template else ""
    if not command:
        raise Invalid("give a command: the project's template has no default one",
                      code=ErrorCode.NO_COMMAND)
    return command


def to_public(job: Job) -> JobPublic:
    return JobPublic.model_validate(job, from_attributes=True)


class JobLineage(Protocol):
    """Where a job's files are linked to it when it ends and when its artifacts are pulled:
    ``server.lineage.record``, handed in by ``create_app`` (the lineage sits above the training
    jobs it links, docs/architecture.md, "Layers")."""

    def record_job_outputs(self, session: Session, job: Job, jobs_dir: Path) -> None: ...

    def record_job_files(self, session: Session, job: Job, root: str, folder: Path,
                         job_dir: Path) -> None: ...


class JobManager:
    def __init__(self, engine: Engine, hub: EventHub, data_dir: Path, *, per_user: int,
                 sandbox: Sandbox, lineage: JobLineage, stop_grace: float = 5.0) -> None:
        self._engine = engine
        self.lineage = lineage
        self._hub = hub
        # Active jobs by the user who started them (resumed ones have no known starter).
        self._quota = Quota("active jobs", ErrorCode.JOB_LIMIT, per_user)
        self.jobs_dir = data_dir / "jobs"
        self._project_of: dict[str, str] = {}
        self._lock = threading.Lock()
        self._venv_builds: set[str] = set()
        self.runners: dict[str, Runner] = {
            "local": LocalRunner(self, self.jobs_dir, sandbox, stop_grace=stop_grace)}
        self._prepare: dict[str, Prepare] = {}

    def register(self, backend: str, runner: Runner, prepare: Prepare | None = None) -> None:
        """Add a backend; do it before ``start`` so its jobs are reconciled too."""
        self.runners[backend] = runner
        if prepare is not None:
            self._prepare[backend] = prepare

    def start(self) -> None:
        """Resume every job an earlier server left active, on the runner of its backend.

        Jobs of a backend with no registered runner are left as they are: that backend may be
        configured later, and its runner resumes them then.
        """
        with Session(self._engine) as session:
            query = select(Job, Project).join(Project).where(
                col(Job.status).in_(ACTIVE_STATUSES))
            rows = list(session.exec(query))
            specs = [(job, self._spec(session, job, project)) for job, project in rows]
        for job, spec in specs:
            runner = self.runners.get(job.backend)
            if runner is not None:
                self._project_of[job.id] = job.project_id
                runner.resume(spec, ProcessRecord(job.status, job.pid, job.pid_started_at))

    def close(self) -> None:
        """Stop following jobs (they keep running; the next server re-attaches)."""
        for runner in self.runners.values():
            runner.close()

    # -- JobSink: what runners report --------------------------------------------------------

    def transition(self, job_id: str, change: Transition) -> None:
        if change.status not in ACTIVE_STATUSES:  # before the end shows: its owner may start more
            self._quota.give_back(job_id)
        public = until_stored(lambda: self._store(job_id, change), f"job {job_id} {change.status}")
        if public is None:
            return
        if change.status not in ACTIVE_STATUSES:  # runners send the last log batch before this
            self._project_of.pop(job_id, None)
        self._hub.emit(public.project_id, JobStatus(job=public, **change.extra))

    def _store(self, job_id: str, change: Transition) -> JobPublic | None:
        with Session(self._engine) as session:
            job = session.get(Job, job_id)
            if job is None:
                return None
            job.status, job.reason, job.exit_code = change.status, change.reason, change.exit_code
            for name in ("pid", "pid_started_at", "started_at", "finished_at"):
                value = getattr(change, name)
                if value is not None:
                    setattr(job, name, value)
            session.add(job)
            if change.status not in ACTIVE_STATUSES:  # its files' links land with the end
                self.lineage.record_job_outputs(session, job, self.jobs_dir)
            session.commit()
            return to_public(job)

    def log(self, job_id: str, offset: int, text: str, next_offset: int) -> None:
        self._hub.emit(self._project_id(job_id), JobLog(
            job_id=job_id, offset=offset, next_offset=next_offset, text=text))

    def metrics(self, job_id: str, points: list[dict[str, Any]]) -> None:
        self._hub.emit(self._project_id(job_id), JobMetric(job_id=job_id, points=points))

    def _project_id(self, job_id: str) -> str:
        if job_id not in self._project_of:
            with Session(self._engine) as session:
                job = session.get(Job, job_id)
                self._project_of[job_id] = job.project_id if job else ""
        return self._project_of[job_id]

    # -- operations behind the routes ----------------------------------------------------------

    def _runner(self, backend: str) -> Runner:
        runner = self.runners.get(backend)
        if runner is None:
            raise Invalid(f"unknown or unconfigured backend {backend!r}; available: "
                          f"{', '.join(sorted(self.runners))}", code=ErrorCode.UNKNOWN_BACKEND)
        return runner

    def _spec(self, session: Session, job: Job, project: Project) -> JobSpec:
        return JobSpec(id=job.id, project_id=project.id, project_path=Path(project.path),
                       command=job.command, config=job.config,
                       interpreter=resolve_interpreter(session, project).interpreter,
                       job_dir=self.jobs_dir / job.id, commit=job.commit)

    def ensure_room(self, owner: str, count: int) -> None:
        """Refuse unless ``owner`` (a user id) may start ``count`` more jobs."""
        self._quota.ensure_room(owner, count)

    def submit(
        self, session: Session, project: Project, body: JobCreate, policy: UrlPolicy, owner: str
    ) -> Job:
        """Start a job for ``owner`` (a user id; counted against their cap until it ends)."""
        runner = self._runner(body.backend)
        self.ensure_room(owner, 1)
        command = body.command or default_command(project)
        prepare = self._prepare.get(body.backend)
        commit, config = (prepare(project, body, policy) if prepare
                          else (head_commit(Path(project.path)), body.config))
        job = Job(project_id=project.id, backend=body.backend, command=command, config=config,
                  commit=commit)
        self._quota.take(owner, job.id)
        session.add(job)
        release(session)  # committed, the row kept loaded: no connection while the job starts
        self._project_of[job.id] = project.id
        try:
            spec = self._spec(session, job, project)
            release(session)
            runner.submit(spec)
        except AppError:
            session.delete(job)  # refused before anything ran: no trace of it
            session.commit()
            self._quota.give_back(job.id)
            raise
        except OSError as exc:
            self.transition(job.id, Transition(
                "failed", reason=f"could not start the job: {exc}", finished_at=utcnow()))
        session.refresh(job)
        release(session)
        return job

    def list_jobs(self, session: Session, project: Project) -> list[Job]:
        query = select(Job).where(Job.project_id == project.id).order_by(
            col(Job.created_at).desc())
        return list(session.exec(query))

    def get_job(self, session: Session, user: User, job_id: str) -> Job:
        job = session.get(Job, job_id)
        if job is None:
            raise NotFound("no such job", code=ErrorCode.NO_JOB)
        projects.get_project(session, user, job.project_id)
        return job

    def stop(self, session: Session, user: User, job_id: str) -> Job:
        job = self.get_job(session, user, job_id)
        projects.get_project(session, user, job.project_id, "run")
        release(session)  # stopping waits for the process to end
        self._backend_of(job).stop(job.id)
        session.refresh(job)
        release(session)
        return job

    def logs(self, session: Session, user: User, job_id: str, offset: int) -> LogChunk:
        job = self.get_job(session, user, job_id)
        return self._backend_of(job).logs(job.id, offset)

    def metrics_of(self, session: Session, user: User, job_id: str) -> JobMetrics:
        job = self.get_job(session, user, job_id)
        return JobMetrics(job_id=job.id, points=read_metrics(self.jobs_dir / job.id))

    def create_venv(self, project: Project, body: VenvCreate) -> VenvStarted:
        """Start building ``<project>/.venv`` in the background; progress goes to the tab."""
        path = Path(project.path)
        check_can_create(path)
        with self._lock:
            if project.id in self._venv_builds:
                raise Conflict("a venv is already being created for this project",
                               code=ErrorCode.VENV_BUSY)
            self._venv_builds.add(project.id)

        def build() -> None:
            try:
                create_venv(path, lambda event: self._hub.emit(project.id, event),
                    inherit_server_packages=body.inherit_server_packages)
            finally:
                with self._lock:
                    self._venv_builds.discard(project.id)

        threading.Thread(target=build, name=f"venv-{project.id}", daemon=True).start()
        return VenvStarted(path=str(path / VENV_DIR))

    def _backend_of(self, job: Job) -> Runner:
        runner = self.runners.get(job.backend)
        if runner is None:
            raise Unavailable(f"the {job.backend!r} backend is not configured",
                              code=ErrorCode.BACKEND_UNAVAILABLE)
        return runner
