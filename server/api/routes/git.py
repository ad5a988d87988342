"""Git: the Source Control panel's API (docs/git.md). Every write runs in the threadpool and is
followed by a ``git`` ``changed`` event; fetch, pull and push also stream ``progress``."""

from collections.abc import Callable
from functools import partial
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Response
from fastapi.concurrency import run_in_threadpool

from server.api.deps import (
    ClientId,
    CurrentUser,
    EditableProject,
    GitUrlPolicy,
    HubDep,
    ProjectDep,
    RunnerProject,
    SessionDep,
    SettingsDep,
    ToolsDep,
    WatchersDep,
)
from server.api.routes.git_identity import StoredAuthor
from server.core.secrets import KEY_FILE, SecretBox
from server.gitflow import blobs, service
from server.gitflow.credentials import CredentialStore
from server.gitflow.models import (
    Blame,
    BlobRequest,
    Branch,
    BranchCreate,
    CheckoutRequest,
    CommitDetail,
    CommitInfo,
    CommitRequest,
    ConflictFile,
    Diff,
    FetchResult,
    InitRequest,
    MergeRequest,
    MergeResult,
    PathsRequest,
    PickResult,
    PullResult,
    PushResult,
    RefLabel,
    Remote,
    RemoteCreate,
    ResolveRequest,
    SavedCredential,
    StashApplied,
    StashCreate,
    StashEntry,
    Status,
    SyncRequest,
    TagCreate,
    TagInfo,
    TagPushRequest,
    TagPushResult,
    TextRequest,
)
from server.gitflow.transport import DEFAULT_TIMEOUT
from server.gitflow.urlpolicy import UrlPolicy
from server.gitflow.writes import GitWrites
from server.modeltools import blobs as model_blobs
from server.modeltools.models import ToolRunPublic

router = APIRouter(prefix="/api/projects/{pid}/git", tags=["git"])


def git_writes(hub: HubDep, watchers: WatchersDep, client: ClientId) -> GitWrites:
    return GitWrites(hub, watchers, client)


Writes = Annotated[GitWrites, Depends(git_writes)]


def credential_store(
    pid: str, session: SessionDep, settings: SettingsDep, user: CurrentUser
) -> CredentialStore:
    """The caller's remembered credentials for this project (the route's own dep checks access)."""
    return CredentialStore(session, SecretBox(settings.data_dir / KEY_FILE), user.id, pid)


Store = Annotated[CredentialStore, Depends(credential_store)]


async def _sync(
    op: str,
    fn: Callable[..., Any],
    body: SyncRequest,
    project: Any,
    writes: GitWrites,
    store: CredentialStore,
    policy: UrlPolicy,
    *args: Any,
) -> Any:
    """Fetch, pull or push with the given or remembered credentials; remember them on success.
    The caller's URL policy is applied again here: the remote may have changed since it was added."""
    url = service.remote_url(project.path, body.remote)
    user, password = store.for_request(body, url)
    timeout = body.timeout or DEFAULT_TIMEOUT
    progress = writes.progress(project, op)
    checked = partial(fn, policy=policy)
    result = await writes.run(project, op, checked, body.remote, *args, user, password, timeout, progress)
    if body.remember and password:
        store.remember(body.remote, url, user or "", password)
    return result


@router.get("/status")
def status(project: ProjectDep, later: BackgroundTasks) -> Status:
    return service.status(project.path, later=later.add_task)


@router.get("/diff")
def diff(project: ProjectDep, path: str, staged: bool = False) -> Diff:
    return service.diff(project.path, path, staged)


@router.post("/stage")
async def stage(body: PathsRequest, project: EditableProject, writes: Writes) -> Status:
    return await writes.run(project, "stage", service.stage, body.paths)


@router.post("/unstage")
async def unstage(body: PathsRequest, project: EditableProject, writes: Writes) -> Status:
    return await writes.run(project, "unstage", service.unstage, body.paths)


@router.post("/discard")
async def discard(body: PathsRequest, project: EditableProject, writes: Writes) -> Status:
    return await writes.run(project, "discard", service.discard, body.paths)


@router.post("/stage-text")
async def stage_text(body: TextRequest, project: EditableProject, writes: Writes) -> Status:
    return await writes.run(project, "stage", service.stage_text, body.path, body.text, body.base)


@router.post("/discard-text")
async def discard_text(body: TextRequest, project: EditableProject, writes: Writes) -> Status:
    return await writes.run(project, "discard", service.discard_text, body.path, body.text, body.base)


@router.post("/merge")
async def merge(
    body: MergeRequest, project: EditableProject, writes: Writes, author: StoredAuthor
) -> MergeResult:
    run = partial(service.merge, fallback_author=author)
    return await writes.run(project, "merge", run, body.branch, body.author)


@router.post("/commit", status_code=201)
async def commit(
    body: CommitRequest, project: EditableProject, writes: Writes, author: StoredAuthor
) -> CommitInfo:
    commit = partial(service.commit, fallback_author=author)
    return await writes.run(project, "commit", commit, body.message, body.amend, body.author)


@router.get("/blame")
def blame(project: ProjectDep, path: str, rev: str = "HEAD") -> Blame:
    return service.blame(project.path, path, rev)


@router.get("/conflict")
def conflict(project: ProjectDep, path: str) -> ConflictFile:
    return service.conflict(project.path, path)


@router.post("/resolve")
async def resolve(body: ResolveRequest, project: EditableProject, writes: Writes) -> Status:
    return await writes.run(project, "resolve", service.resolve, body.path, body.content, body.take)


@router.get("/blob")
def blob(project: ProjectDep, rev: str, path: str) -> Response:
    data, sha = blobs.read_blob(project.path, rev, path)
    name = quote(path.rsplit("/", 1)[-1])
    # An opaque download, like /files/raw: no stored file can run as a page on this origin.
    headers = {
        "Content-Disposition": f"attachment; filename*=utf-8''{name}",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
        "ETag": f'"{sha}"',
    }
    return Response(data, media_type="application/octet-stream", headers=headers)


@router.post("/blob-inspect", status_code=202)
async def blob_inspect(
    body: BlobRequest,
    project: RunnerProject,
    session: SessionDep,
    settings: SettingsDep,
    tools: ToolsDep,
    user: CurrentUser,
) -> ToolRunPublic:
    return await run_in_threadpool(
        model_blobs.inspect_blob, settings.data_dir, tools, session, project, body.rev, body.path, user.id
    )


@router.get("/log")
def log(
    project: ProjectDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    skip: Annotated[int, Query(ge=0)] = 0,
    ref: str | None = None,
    all: bool = False,
) -> list[CommitInfo]:
    return service.log(project.path, limit, skip, ref, every=all)


@router.get("/commits/{sha}")
def show(project: ProjectDep, sha: str) -> CommitDetail:
    return service.show(project.path, sha)


@router.get("/commits/{sha}/diff")
def commit_diff(project: ProjectDep, sha: str, path: str) -> Diff:
    return service.commit_diff(project.path, sha, path)


@router.post("/commits/{sha}/cherry-pick")
async def cherry_pick(sha: str, project: EditableProject, writes: Writes, author: StoredAuthor) -> PickResult:
    run = partial(service.pick, revert=False, fallback_author=author)
    return await writes.run(project, "cherry-pick", run, sha)


@router.post("/commits/{sha}/revert")
async def revert(sha: str, project: EditableProject, writes: Writes, author: StoredAuthor) -> PickResult:
    run = partial(service.pick, revert=True, fallback_author=author)
    return await writes.run(project, "revert", run, sha)


@router.get("/branches")
def branches(project: ProjectDep) -> list[Branch]:
    return service.branches(project.path)


@router.get("/refs")
def refs(project: ProjectDep) -> list[RefLabel]:
    return service.refs(project.path)


@router.get("/tags")
def tags(project: ProjectDep) -> list[TagInfo]:
    return service.tags(project.path)


@router.post("/tags", status_code=201)
async def create_tag(
    body: TagCreate, project: EditableProject, writes: Writes, author: StoredAuthor
) -> TagInfo:
    run = partial(service.create_tag, fallback_author=author)
    return await writes.run(project, "tag", run, body.name, body.target, body.message)


@router.post("/tags/push")
async def push_tag(
    body: TagPushRequest, project: RunnerProject, writes: Writes, store: Store, policy: GitUrlPolicy
) -> TagPushResult:
    return await _sync("push", service.push_tag, body, project, writes, store, policy, body.tag)


@router.delete("/tags/{name:path}", status_code=204)
async def delete_tag(name: str, project: EditableProject, writes: Writes) -> None:
    await writes.run(project, "tag", service.delete_tag, name)


@router.post("/branches", status_code=201)
async def create_branch(body: BranchCreate, project: EditableProject, writes: Writes) -> Branch:
    return await writes.run(project, "branch", service.create_branch, body.name, body.start_point)


@router.delete("/branches/{name:path}", status_code=204)
async def delete_branch(name: str, project: EditableProject, writes: Writes, force: bool = False) -> None:
    await writes.run(project, "branch", service.delete_branch, name, force)


@router.post("/checkout")
async def checkout(body: CheckoutRequest, project: EditableProject, writes: Writes) -> Status:
    return await writes.run(project, "checkout", service.checkout, body.branch)


@router.get("/remotes")
def remotes(project: ProjectDep) -> list[Remote]:
    return service.remotes(project.path)


@router.post("/remotes", status_code=201)
async def add_remote(
    body: RemoteCreate, project: EditableProject, writes: Writes, policy: GitUrlPolicy
) -> Remote:
    return await writes.run(project, "remote", service.add_remote, body.name, body.url, policy)


@router.delete("/remotes/{name}", status_code=204)
async def remove_remote(name: str, project: EditableProject, writes: Writes, store: Store) -> None:
    await writes.run(project, "remote", service.remove_remote, name)
    store.forget(name, missing_ok=True)


@router.post("/fetch")
async def fetch(
    body: SyncRequest, project: EditableProject, writes: Writes, store: Store, policy: GitUrlPolicy
) -> FetchResult:
    return await _sync("fetch", service.fetch, body, project, writes, store, policy)


@router.post("/pull")
async def pull(
    body: SyncRequest, project: EditableProject, writes: Writes, store: Store, policy: GitUrlPolicy,
    author: StoredAuthor,
) -> PullResult:
    pull = partial(service.pull, fallback_author=author)
    return await _sync("pull", pull, body, project, writes, store, policy, body.branch)


@router.post("/push")
async def push(
    body: SyncRequest, project: RunnerProject, writes: Writes, store: Store, policy: GitUrlPolicy
) -> PushResult:
    return await _sync("push", service.push, body, project, writes, store, policy, body.branch)


@router.get("/credentials")
def saved_credentials(project: ProjectDep, store: Store) -> list[SavedCredential]:
    return store.listed()


@router.delete("/credentials/{name}", status_code=204)
def forget_credentials(name: str, project: EditableProject, store: Store) -> None:
    store.forget(name)


@router.get("/stashes")
def stashes(project: ProjectDep) -> list[StashEntry]:
    return service.stashes(project.path)


@router.post("/stashes", status_code=201)
async def stash_push(
    body: StashCreate, project: EditableProject, writes: Writes, author: StoredAuthor
) -> StashEntry:
    push = partial(service.stash_push, fallback_author=author)
    return await writes.run(project, "stash", push, body.message, body.include_untracked)


@router.post("/stashes/{index}/apply")
async def stash_apply(index: int, project: EditableProject, writes: Writes) -> StashApplied:
    return await writes.run(project, "stash", service.stash_apply, index, False)


@router.post("/stashes/{index}/pop")
async def stash_pop(index: int, project: EditableProject, writes: Writes) -> StashApplied:
    return await writes.run(project, "stash", service.stash_apply, index, True)


@router.delete("/stashes/{index}", status_code=204)
async def stash_drop(index: int, project: EditableProject, writes: Writes) -> None:
    await writes.run(project, "stash", service.stash_drop, index)


@router.post("/init", status_code=201)
async def init(
    project: EditableProject, writes: Writes, author: StoredAuthor, body: InitRequest | None = None
) -> Status:
    """An empty repository; with ``commit`` one whose first commit holds the project's files."""
    if body is None or not body.commit:
        return await writes.run(project, "init", service.init)
    run = partial(service.start_tracking, fallback_author=author)
    return await writes.run(project, "init", run, body.author)
