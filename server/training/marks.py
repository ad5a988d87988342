"""The job whose model the flow continues from: one per project, marked by hand ("Use this
model"), kept in the database so it survives a restart (docs/training.md, "The marked model").

The row names the job by id without a foreign key: a job that disappears leaves its mark behind,
so the flow can say that the marked job is gone instead of falling back to another one.
"""

from datetime import datetime
from typing import ClassVar

from sqlmodel import Field, Session, SQLModel

from device_bridge.tab_events import Channel, TabEvent
from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, NotFound
from server.core.events import EventHub
from server.projects.models import Project
from server.training.models import Job


class MarkedJob(SQLModel, table=True):
    __tablename__ = "marked_jobs"

    project_id: str = Field(foreign_key="projects.id", ondelete="CASCADE", primary_key=True,
                            max_length=32)
    job_id: str = Field(max_length=32)
    marked_at: datetime = Field(default_factory=utcnow)


class MarkedModel(SQLModel):
    """The project's marked job; both null when none is marked."""

    job_id: str | None = None
    marked_at: datetime | None = None


class JobMarked(TabEvent):
    """The project's marked job changed (``MarkedModel``'s fields)."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "job.marked"
    job_id: str | None = None
    marked_at: datetime | None = None


class MarkBody(SQLModel):
    job_id: str = Field(min_length=1, max_length=32)


def marked_job(session: Session, project_id: str) -> MarkedJob | None:
    return session.get(MarkedJob, project_id)


def public(mark: MarkedJob | None) -> MarkedModel:
    return MarkedModel(job_id=mark.job_id, marked_at=mark.marked_at) if mark else MarkedModel()


def mark(session: Session, hub: EventHub, project: Project, job_id: str) -> MarkedModel:
    """Marks a succeeded job of the project, replacing any earlier mark (one at a time), and
    tells the project's tabs (``jobs``/``job.marked``)."""
    job = session.get(Job, job_id)
    if job is None or job.project_id != project.id:
        raise NotFound("no such job in this project", code=ErrorCode.JOB_NOT_FOUND)
    if job.status != "succeeded":
        raise Conflict(f"job {job.id[:8]} is {job.status}: only a succeeded job's model can be "
                       "used", code=ErrorCode.JOB_NOT_SUCCEEDED)
    row = marked_job(session, project.id) or MarkedJob(project_id=project.id, job_id=job.id)
    row.job_id, row.marked_at = job.id, utcnow()
    session.add(row)
    session.commit()
    session.refresh(row)
    return _told(hub, project, public(row))


def unmark(session: Session, hub: EventHub, project: Project) -> MarkedModel:
    """Takes the project's mark away, if any, and tells its tabs (``jobs``/``job.marked``)."""
    row = marked_job(session, project.id)
    if row is not None:
        session.delete(row)
        session.commit()
    return _told(hub, project, MarkedModel())


def _told(hub: EventHub, project: Project, marked: MarkedModel) -> MarkedModel:
    hub.emit(project.id, JobMarked(**marked.model_dump()))
    return marked
