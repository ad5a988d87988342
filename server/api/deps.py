"""Request dependencies as ``Annotated`` aliases; long-lived managers come from ``app.state``."""

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session
from starlette.requests import HTTPConnection

from server.core.config import Settings
from server.core.events import EventHub
from server.files.watch import FileWatchers
from server.projects import service as projects
from server.projects.models import Project
from server.training.service import JobManager
from server.users.models import User
from server.users.service import user_for_principal


def get_settings(conn: HTTPConnection) -> Settings:
    settings: Settings = conn.app.state.settings
    return settings


def get_session(conn: HTTPConnection) -> Iterator[Session]:
    with Session(conn.app.state.engine) as session:
        yield session


def get_hub(conn: HTTPConnection) -> EventHub:
    hub: EventHub = conn.app.state.hub
    return hub


def get_watchers(conn: HTTPConnection) -> FileWatchers:
    watchers: FileWatchers = conn.app.state.watchers
    return watchers


def get_jobs(conn: HTTPConnection) -> JobManager:
    jobs: JobManager = conn.app.state.jobs
    return jobs


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
HubDep = Annotated[EventHub, Depends(get_hub)]
WatchersDep = Annotated[FileWatchers, Depends(get_watchers)]
JobsDep = Annotated[JobManager, Depends(get_jobs)]


def current_user(conn: HTTPConnection, session: SessionDep) -> User:
    return user_for_principal(session, conn.scope.get("state", {}).get("principal"))


CurrentUser = Annotated[User, Depends(current_user)]


def readable_project(pid: str, session: SessionDep, user: CurrentUser) -> Project:
    return projects.get_project(session, user, pid)


def editable_project(pid: str, session: SessionDep, user: CurrentUser) -> Project:
    # Local mode has one owner; team mode narrows this to owners and editors.
    return projects.get_project(session, user, pid)


ProjectDep = Annotated[Project, Depends(readable_project)]
EditableProject = Annotated[Project, Depends(editable_project)]


def client_id(request: Request) -> str | None:
    """The id a browser tab sends so it can recognise its own events."""
    value = request.headers.get("x-mnnwb-client")
    return value[:64] if value else None


ClientId = Annotated[str | None, Depends(client_id)]
