"""Training jobs, a project's interpreter and its venv (docs/training.md)."""

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool

from server.api.deps import (
    CurrentUser,
    EditableProject,
    GitUrlPolicy,
    HubDep,
    JobsDep,
    ProjectDep,
    RunnerProject,
    SessionDep,
)
from server.projects import service as projects
from server.projects.models import Project
from server.training import marks
from server.training.marks import MarkBody, MarkedModel
from server.training.models import (
    Job,
    JobCreate,
    JobMetrics,
    JobPublic,
    JobRerun,
    RuntimePublic,
    RuntimeUpdate,
    VenvCreate,
    VenvStarted,
)
from server.training.runner import LogChunk
from server.training.runtime import resolve_interpreter, set_interpreter
from server.training.service import to_public

router = APIRouter(prefix="/api", tags=["jobs"])


@router.get("/projects/{pid}/jobs")
def list_jobs(project: ProjectDep, session: SessionDep, jobs: JobsDep) -> list[JobPublic]:
    return [to_public(job) for job in jobs.list_jobs(session, project)]


@router.post("/projects/{pid}/jobs", status_code=201)
async def submit_job(body: JobCreate, project: RunnerProject, session: SessionDep,
                     jobs: JobsDep, policy: GitUrlPolicy, user: CurrentUser) -> JobPublic:
    return to_public(await run_in_threadpool(jobs.submit, session, project, body, policy, user.id))


def _rerunnable(jid: str, session: SessionDep, user: CurrentUser, jobs: JobsDep) -> tuple[Job, Project]:
    """The job and its project, for a caller who may run jobs there (checked before the body)."""
    job = jobs.get_job(session, user, jid)
    return job, projects.get_project(session, user, job.project_id, "run")


@router.post("/jobs/{jid}/rerun", status_code=201)
async def rerun_job(found: Annotated[tuple[Job, Project], Depends(_rerunnable)], session: SessionDep,
                    user: CurrentUser, jobs: JobsDep, policy: GitUrlPolicy,
                    body: JobRerun | None = None) -> JobPublic:
    """A new job on the same backend, with the job's command and config unless the body gives
    others; it runs the project as it is now (docs/training.md)."""
    body = body or JobRerun()
    job, project = found
    create = JobCreate(backend=job.backend, command=body.command or job.command,
                       config=dict(job.config) if body.config is None else body.config)
    return to_public(await run_in_threadpool(jobs.submit, session, project, create, policy, user.id))


@router.get("/projects/{pid}/jobs/marked")
def get_marked(project: ProjectDep, session: SessionDep) -> MarkedModel:
    """The job whose model the flow continues from (docs/training.md, "The marked model")."""
    return marks.public(marks.marked_job(session, project.id))


@router.put("/projects/{pid}/jobs/marked")
def put_marked(body: MarkBody, project: EditableProject, session: SessionDep,
               hub: HubDep) -> MarkedModel:
    return marks.mark(session, hub, project, body.job_id)


@router.delete("/projects/{pid}/jobs/marked")
def delete_marked(project: EditableProject, session: SessionDep, hub: HubDep) -> MarkedModel:
    return marks.unmark(session, hub, project)


@router.get("/jobs/{jid}")
def get_job(jid: str, session: SessionDep, user: CurrentUser, jobs: JobsDep) -> JobPublic:
    return to_public(jobs.get_job(session, user, jid))


@router.post("/jobs/{jid}/stop")
def stop_job(jid: str, session: SessionDep, user: CurrentUser, jobs: JobsDep) -> JobPublic:
    return to_public(jobs.stop(session, user, jid))


@router.get("/jobs/{jid}/logs")
def job_logs(jid: str, session: SessionDep, user: CurrentUser, jobs: JobsDep,
             offset: Annotated[int, Query(ge=0)] = 0) -> LogChunk:
    return jobs.logs(session, user, jid, offset)


@router.get("/jobs/{jid}/metrics")
def job_metrics(jid: str, session: SessionDep, user: CurrentUser, jobs: JobsDep) -> JobMetrics:
    return jobs.metrics_of(session, user, jid)


@router.get("/projects/{pid}/runtime")
def get_runtime(project: ProjectDep, session: SessionDep) -> RuntimePublic:
    return resolve_interpreter(session, project)


@router.put("/projects/{pid}/runtime")
def put_runtime(body: RuntimeUpdate, project: EditableProject,
                session: SessionDep) -> RuntimePublic:
    return set_interpreter(session, project, body)


@router.post("/projects/{pid}/runtime/venv", status_code=202)
def create_venv(body: VenvCreate, project: RunnerProject, jobs: JobsDep) -> VenvStarted:
    return jobs.create_venv(project, body)
