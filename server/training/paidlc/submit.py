"""What happens before a PAI-DLC job row exists: check the job's config and the settings, make
sure the code is committed and pushed (or commit and push it when asked), and find or create the
workspace's code source for the remote. DLC clones the code itself, so an unpushed commit could
never run there.
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.core.events import EventHub
from server.files.events import GitChanged
from server.gitflow import service as git
from server.gitflow.models import Branch, Status
from server.gitflow.transport import split_credentials
from server.gitflow.urlpolicy import UrlPolicy
from server.projects.models import Project
from server.training.cloud import PaiDlcSettings
from server.training.cloud.commits import commit_all, listed, parse_config, uncommitted_paths
from server.training.models import JobCreate
from server.training.paidlc.settings import PaiDlcStore, missing_settings


class CloudJobConfig(BaseModel):
    """The ``config`` a PAI-DLC job accepts; anything left out comes from the settings."""

    model_config = ConfigDict(extra="forbid")

    image: str | None = None
    ecs_spec: str | None = None
    pod_count: int | None = Field(default=None, ge=1, le=64)
    job_type: str | None = None
    max_running_minutes: int | None = Field(default=None, ge=1)
    env: dict[str, str] = Field(default_factory=dict, description="extra environment variables")


class StoredCloudConfig(CloudJobConfig):
    """What the job row keeps: the user's config plus where the code came from."""

    model_config = ConfigDict(extra="ignore")

    code_source_id: str
    remote_url: str
    branch: str


@dataclass(frozen=True)
class PushedCode:
    remote: str
    url: str
    branch: str
    commit: str


def check_settings(settings: PaiDlcSettings) -> None:
    missing = missing_settings(settings)
    if missing:
        raise Invalid(f"PAI-DLC settings lack {', '.join(missing)}", code=ErrorCode.PAI_DLC_NOT_CONFIGURED)


def _current(folder: Path) -> tuple[Status, str, Branch | None]:
    """The status, the checked-out branch's name, and the branch (None before its first commit)."""
    status = git.status(folder)
    if status.branch is None:
        raise Invalid("check out a branch to run in the cloud", code=ErrorCode.DETACHED_HEAD)
    branch = next((b for b in git.branches(folder) if b.current), None)
    return status, status.branch, branch


def _remote_url(folder: Path, name: str) -> str:
    for remote in git.remotes(folder):
        if remote.name == name:
            return split_credentials(remote.url)[0]
    raise Conflict(f"the project has no Git remote {name!r}: add one so the cloud can fetch "
                   "the code", code=ErrorCode.NO_REMOTE, remote=name)


def _is_pushed(branch: Branch | None, remote: str) -> bool:
    return (branch is not None and branch.upstream == f"{remote}/{branch.name}"
            and not branch.ahead)


def _not_pushed(uncommitted: list[str], name: str, branch: Branch | None, remote: str) -> Conflict:
    problems = []
    if uncommitted:
        problems.append(listed(uncommitted))
    ahead = branch.ahead if branch else 0
    if branch is None or branch.upstream != f"{remote}/{name}":
        problems.append(f"{name} has not been pushed to {remote}")
    elif ahead:
        problems.append(f"{name} is {ahead} commit(s) ahead of {branch.upstream}")
    return Conflict(
        "a cloud job runs the pushed commit; commit and push first (or send commit_and_push "
        "with a message): " + "; ".join(problems),
        code=ErrorCode.NOT_PUSHED, uncommitted=uncommitted, branch=name, remote=remote, ahead=ahead,
        upstream=branch.upstream if branch else None)


def ensure_pushed(
    folder: Path, body: JobCreate, on_change: Callable[[str], None], policy: UrlPolicy
) -> PushedCode:
    """The pushed commit to run; with ``commit_and_push``, commit everything and push first."""
    status, name, branch = _current(folder)
    upstream_remote = branch.upstream.split("/", 1)[0] if branch and branch.upstream else None
    remote = body.remote or upstream_remote or "origin"
    url = _remote_url(folder, remote)
    uncommitted = uncommitted_paths(status)
    if branch is not None and not uncommitted and _is_pushed(branch, remote):
        return PushedCode(remote, url, name, branch.commit)
    if not body.commit_and_push:
        raise _not_pushed(uncommitted, name, branch, remote)
    if uncommitted:
        commit_all(folder, status, body)
        on_change("commit")
    password = body.password.get_secret_value() if body.password else None
    pushed = git.push(folder, remote, name, body.username, password, policy=policy)
    on_change("push")
    return PushedCode(remote, url, name, pushed.commit)


class PreparePaiDlc:
    """The job manager's ``Prepare`` hook for the ``pai-dlc`` backend."""

    def __init__(self, store: PaiDlcStore, hub: EventHub) -> None:
        self._store = store
        self._hub = hub

    def __call__(
        self, project: Project, body: JobCreate, policy: UrlPolicy
    ) -> tuple[str | None, dict[str, Any]]:
        config = parse_config(CloudJobConfig, "PAI-DLC", body.config)
        client = self._store.connect().client
        check_settings(client.settings)

        def changed(op: str) -> None:
            self._hub.emit(project.id, GitChanged(op=op))

        code = ensure_pushed(Path(project.path), body, changed, policy)
        password = body.password.get_secret_value() if body.password else None
        source = client.ensure_code_source(code.url, code.branch, body.username, password)
        stored = StoredCloudConfig(**config.model_dump(), code_source_id=source,
                                   remote_url=code.url, branch=code.branch)
        return code.commit, stored.model_dump(exclude_none=True)
