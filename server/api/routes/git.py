"""Git: the Source Control panel's API (DESIGN §5). Every write runs in the threadpool and is
followed by a ``git`` ``changed`` event; fetch, pull and push also stream ``progress``."""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool

from server.api.deps import ClientId, EditableProject, HubDep, ProjectDep, RunnerProject
from server.core.events import EventHub
from server.gitflow import service
from server.gitflow.models import (
    Branch,
    BranchCreate,
    CheckoutRequest,
    CommitDetail,
    CommitInfo,
    CommitRequest,
    Diff,
    FetchResult,
    PathsRequest,
    PullResult,
    PushResult,
    Remote,
    RemoteCreate,
    StashApplied,
    StashCreate,
    StashEntry,
    Status,
    SyncRequest,
)
from server.gitflow.transport import DEFAULT_TIMEOUT, throttled

router = APIRouter(prefix="/api/projects/{pid}/git", tags=["git"])


async def _write(
    hub: EventHub, project: Any, client: str | None, op: str, fn: Callable[..., Any], *args: Any
) -> Any:
    """Run a Git write off the event loop, then tell every tab of the project."""
    result = await run_in_threadpool(fn, project.path, *args)
    hub.publish(project.id, "git", "changed", {"op": op, "client": client})
    return result


def _progress(hub: EventHub, project: Any, op: str) -> Callable[[str], None]:
    def publish(text: str) -> None:
        hub.publish(project.id, "git", "progress", {"op": op, "text": text})

    return throttled(publish)


def _sync_args(body: SyncRequest) -> tuple[Any, ...]:
    password = body.password.get_secret_value() if body.password else None
    return body.remote, body.username, password, body.timeout or DEFAULT_TIMEOUT


@router.get("/status")
def status(project: ProjectDep) -> Status:
    return service.status(project.path)


@router.get("/diff")
def diff(project: ProjectDep, path: str, staged: bool = False) -> Diff:
    return service.diff(project.path, path, staged)


@router.post("/stage")
async def stage(body: PathsRequest, project: EditableProject, hub: HubDep, client: ClientId) -> Status:
    return await _write(hub, project, client, "stage", service.stage, body.paths)


@router.post("/unstage")
async def unstage(body: PathsRequest, project: EditableProject, hub: HubDep, client: ClientId) -> Status:
    return await _write(hub, project, client, "unstage", service.unstage, body.paths)


@router.post("/discard")
async def discard(body: PathsRequest, project: EditableProject, hub: HubDep, client: ClientId) -> Status:
    return await _write(hub, project, client, "discard", service.discard, body.paths)


@router.post("/commit", status_code=201)
async def commit(body: CommitRequest, project: EditableProject, hub: HubDep, client: ClientId) -> CommitInfo:
    return await _write(hub, project, client, "commit", service.commit, body.message, body.amend, body.author)


@router.get("/log")
def log(
    project: ProjectDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    skip: Annotated[int, Query(ge=0)] = 0,
    ref: str | None = None,
) -> list[CommitInfo]:
    return service.log(project.path, limit, skip, ref)


@router.get("/commits/{sha}")
def show(project: ProjectDep, sha: str) -> CommitDetail:
    return service.show(project.path, sha)


@router.get("/commits/{sha}/diff")
def commit_diff(project: ProjectDep, sha: str, path: str) -> Diff:
    return service.commit_diff(project.path, sha, path)


@router.get("/branches")
def branches(project: ProjectDep) -> list[Branch]:
    return service.branches(project.path)


@router.post("/branches", status_code=201)
async def create_branch(
    body: BranchCreate, project: EditableProject, hub: HubDep, client: ClientId
) -> Branch:
    return await _write(hub, project, client, "branch", service.create_branch, body.name, body.start_point)


@router.delete("/branches/{name:path}", status_code=204)
async def delete_branch(
    name: str, project: EditableProject, hub: HubDep, client: ClientId, force: bool = False
) -> None:
    await _write(hub, project, client, "branch", service.delete_branch, name, force)


@router.post("/checkout")
async def checkout(body: CheckoutRequest, project: EditableProject, hub: HubDep, client: ClientId) -> Status:
    return await _write(hub, project, client, "checkout", service.checkout, body.branch)


@router.get("/remotes")
def remotes(project: ProjectDep) -> list[Remote]:
    return service.remotes(project.path)


@router.post("/remotes", status_code=201)
async def add_remote(body: RemoteCreate, project: EditableProject, hub: HubDep, client: ClientId) -> Remote:
    return await _write(hub, project, client, "remote", service.add_remote, body.name, body.url)


@router.delete("/remotes/{name}", status_code=204)
async def remove_remote(name: str, project: EditableProject, hub: HubDep, client: ClientId) -> None:
    await _write(hub, project, client, "remote", service.remove_remote, name)


@router.post("/fetch")
async def fetch(body: SyncRequest, project: EditableProject, hub: HubDep, client: ClientId) -> FetchResult:
    progress = _progress(hub, project, "fetch")
    return await _write(hub, project, client, "fetch", service.fetch, *_sync_args(body), progress)


@router.post("/pull")
async def pull(body: SyncRequest, project: EditableProject, hub: HubDep, client: ClientId) -> PullResult:
    remote, user, password, timeout = _sync_args(body)
    progress = _progress(hub, project, "pull")
    return await _write(
        hub,
        project,
        client,
        "pull",
        service.pull,
        remote,
        body.branch,
        user,
        password,
        timeout,
        progress,
    )


@router.post("/push")
async def push(body: SyncRequest, project: RunnerProject, hub: HubDep, client: ClientId) -> PushResult:
    remote, user, password, timeout = _sync_args(body)
    progress = _progress(hub, project, "push")
    return await _write(
        hub,
        project,
        client,
        "push",
        service.push,
        remote,
        body.branch,
        user,
        password,
        timeout,
        progress,
    )


@router.get("/stashes")
def stashes(project: ProjectDep) -> list[StashEntry]:
    return service.stashes(project.path)


@router.post("/stashes", status_code=201)
async def stash_push(
    body: StashCreate, project: EditableProject, hub: HubDep, client: ClientId
) -> StashEntry:
    return await _write(
        hub, project, client, "stash", service.stash_push, body.message, body.include_untracked
    )


@router.post("/stashes/{index}/apply")
async def stash_apply(index: int, project: EditableProject, hub: HubDep, client: ClientId) -> StashApplied:
    return await _write(hub, project, client, "stash", service.stash_apply, index, False)


@router.post("/stashes/{index}/pop")
async def stash_pop(index: int, project: EditableProject, hub: HubDep, client: ClientId) -> StashApplied:
    return await _write(hub, project, client, "stash", service.stash_apply, index, True)


@router.delete("/stashes/{index}", status_code=204)
async def stash_drop(index: int, project: EditableProject, hub: HubDep, client: ClientId) -> None:
    await _write(hub, project, client, "stash", service.stash_drop, index)


@router.post("/init", status_code=201)
async def init(project: EditableProject, hub: HubDep, client: ClientId) -> Status:
    return await _write(hub, project, client, "init", service.init)
