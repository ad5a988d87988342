"""Request dependencies as ``Annotated`` aliases; long-lived services are typed reads of the
app's ``Services`` (``server/api/services.py``)."""

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlmodel import Session
from starlette.requests import HTTPConnection

from server.api.services import Services, services_of
from server.checks.device import DeviceBench
from server.core.config import Settings
from server.core.db import release
from server.core.error_codes import ErrorCode
from server.core.errors import Forbidden, Invalid
from server.core.events import EventHub
from server.devices.bridge import DeviceBridge
from server.files.watch import FileWatchers
from server.gitflow.urlpolicy import UrlPolicy, policy_for
from server.llm.chat import ChatManager
from server.modeltools.service import ToolManager
from server.projects import service as projects
from server.projects.cloning import CloneJobs
from server.projects.models import Project
from server.sandbox import Sandbox
from server.training.service import JobManager
from server.users.changes import Notify
from server.users.models import User
from server.users.service import user_for_principal
from server.users.sessions import Credential
from server.users.throttle import LoginThrottle


def get_services(conn: HTTPConnection) -> Services:
    return services_of(conn.app)


ServicesDep = Annotated[Services, Depends(get_services)]


def get_settings(conn: HTTPConnection) -> Settings:
    return services_of(conn.app).settings


async def get_session(conn: HTTPConnection) -> AsyncIterator[Session]:
    """The request's session, closed once the response is sent. Opened and closed on the event
    loop, not a worker thread: closing gives its pooled connection back, which must not wait for
    a thread while every thread waits for a connection. The lookups below ``release`` it before
    the route's own work, so a route that saves a file or runs ``git status`` holds none."""
    with Session(services_of(conn.app).engine) as session:
        yield session


def get_hub(conn: HTTPConnection) -> EventHub:
    return services_of(conn.app).hub


def get_watchers(conn: HTTPConnection) -> FileWatchers:
    return services_of(conn.app).watchers


def get_jobs(conn: HTTPConnection) -> JobManager:
    return services_of(conn.app).jobs


def get_tools(conn: HTTPConnection) -> ToolManager:
    return services_of(conn.app).tools


def get_chats(conn: HTTPConnection) -> ChatManager:
    return services_of(conn.app).chats


def get_devices(conn: HTTPConnection) -> DeviceBridge:
    return services_of(conn.app).devices


def get_clones(conn: HTTPConnection) -> CloneJobs:
    return services_of(conn.app).clones


def get_device_bench(conn: HTTPConnection) -> DeviceBench:
    return services_of(conn.app).device_bench


def get_login_throttle(conn: HTTPConnection) -> LoginThrottle:
    return services_of(conn.app).login_throttle


def get_sandbox(conn: HTTPConnection) -> Sandbox:
    return services_of(conn.app).sandbox


def access_changes(conn: HTTPConnection) -> Notify:
    """What services that take access away tell: the open sockets' registry
    (``server/users/connections.py``)."""
    return services_of(conn.app).connections.changed


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[Session, Depends(get_session)]
HubDep = Annotated[EventHub, Depends(get_hub)]
WatchersDep = Annotated[FileWatchers, Depends(get_watchers)]
JobsDep = Annotated[JobManager, Depends(get_jobs)]
AccessChanges = Annotated[Notify, Depends(access_changes)]
ToolsDep = Annotated[ToolManager, Depends(get_tools)]
ChatsDep = Annotated[ChatManager, Depends(get_chats)]
DevicesDep = Annotated[DeviceBridge, Depends(get_devices)]
ClonesDep = Annotated[CloneJobs, Depends(get_clones)]
DeviceBenchDep = Annotated[DeviceBench, Depends(get_device_bench)]
LoginThrottleDep = Annotated[LoginThrottle, Depends(get_login_throttle)]
SandboxDep = Annotated[Sandbox, Depends(get_sandbox)]


def current_user(conn: HTTPConnection, session: SessionDep) -> User:
    user = user_for_principal(session, conn.scope.get("state", {}).get("principal"))
    release(session)
    return user


CurrentUser = Annotated[User, Depends(current_user)]


def admin_user(user: CurrentUser) -> User:
    if user.role != "admin":
        raise Forbidden("this needs an administrator", code=ErrorCode.ADMIN_ONLY)
    return user


AdminUser = Annotated[User, Depends(admin_user)]


def git_url_policy(user: CurrentUser, settings: SettingsDep) -> UrlPolicy:
    return policy_for(settings, user.role)


GitUrlPolicy = Annotated[UrlPolicy, Depends(git_url_policy)]


def credential(conn: HTTPConnection) -> Credential | None:
    """The team-mode session or token behind the request (``None`` in local mode)."""
    found: Credential | None = conn.scope.get("state", {}).get("credential")
    return found


CredentialDep = Annotated[Credential | None, Depends(credential)]


def _project(session: Session, user: User, pid: str, need: str) -> Project:
    project = projects.get_project(session, user, pid, need)
    release(session)
    return project


# Every project route takes the project through one of these; each checks the caller's role
# (docs/team.md, Roles): viewers read, editors also write and run code, owners also manage members.
def readable_project(pid: str, session: SessionDep, user: CurrentUser) -> Project:
    return _project(session, user, pid, "read")


def editable_project(pid: str, session: SessionDep, user: CurrentUser) -> Project:
    return _project(session, user, pid, "write")


def runnable_project(pid: str, session: SessionDep, user: CurrentUser) -> Project:
    return _project(session, user, pid, "run")


def owned_project(pid: str, session: SessionDep, user: CurrentUser) -> Project:
    return _project(session, user, pid, "own")


ProjectDep = Annotated[Project, Depends(readable_project)]
EditableProject = Annotated[Project, Depends(editable_project)]
RunnerProject = Annotated[Project, Depends(runnable_project)]
OwnedProject = Annotated[Project, Depends(owned_project)]


def client_address(conn: HTTPConnection) -> str:
    """The caller's address (the real client when behind a trusted proxy)."""
    return conn.client.host if conn.client else "unknown"


ClientAddress = Annotated[str, Depends(client_address)]


def client_id(request: Request) -> str | None:
    """The id a browser tab sends so it can recognise its own events."""
    value = request.headers.get("x-mnnwb-client")
    return value[:64] if value else None


ClientId = Annotated[str | None, Depends(client_id)]


def team_user(user: CurrentUser, settings: SettingsDep) -> User:
    if not settings.team:
        raise Invalid("accounts and API tokens exist in team mode only", code=ErrorCode.LOCAL_MODE)
    return user


TeamUser = Annotated[User, Depends(team_user)]
