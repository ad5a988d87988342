"""What happens before a Ray job row exists: check its config and the cluster settings, and
settle which code it runs. The workbench uploads the code itself, so a commit need not be
pushed; it must exist, though: a dirty tree is committed when asked (``commit_and_push``), or
refused with the list of changes, unless the user chose to run a snapshot of the work tree.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, NotFound
from server.core.events import EventHub
from server.files.events import GitChanged
from server.gitflow import service as git
from server.gitflow.urlpolicy import UrlPolicy
from server.projects.models import Project
from server.training.cloud.commits import commit_all, listed, parse_config, uncommitted_paths
from server.training.models import JobCreate
from server.training.ray.settings import RaySettingsStore
from server.training.ray.storage import location_for
from server.training.service import head_commit


class RayJobConfig(BaseModel):
    """The ``config`` a Ray job accepts."""

    model_config = ConfigDict(extra="forbid")

    num_cpus: float | None = Field(default=None, ge=0, le=4096)
    num_gpus: float | None = Field(default=None, ge=0, le=1024)
    memory_mb: int | None = Field(default=None, ge=1)
    env: dict[str, str] = Field(default_factory=dict, description="extra environment variables")
    snapshot: bool = Field(default=False, description="run the work tree as it is, not a commit")


def _not_committed(uncommitted: list[str]) -> Conflict:
    return Conflict(
        "a Ray job runs a commit; commit first (send commit_and_push with a message) or run a "
        f"snapshot of the work tree: {listed(uncommitted)}",
        code=ErrorCode.NOT_COMMITTED, uncommitted=uncommitted)


def committed_head(folder: Path, body: JobCreate, on_commit: Callable[[], None]) -> str:
    """The commit to run; with ``commit_and_push``, everything is committed first."""
    try:
        status = git.status(folder)
    except NotFound as exc:
        raise Conflict("the project is not a Git repository: run a snapshot of the work tree",
                       code=ErrorCode.NO_COMMIT, uncommitted=[]) from exc
    uncommitted = uncommitted_paths(status)
    if uncommitted:
        if not body.commit_and_push:
            raise _not_committed(uncommitted)
        commit_all(folder, status, body)
        on_commit()
    commit = head_commit(folder)
    if commit is None:
        raise Conflict("the project has no commit to run", code=ErrorCode.NO_COMMIT, uncommitted=[])
    return commit


class PrepareRay:
    """The job manager's ``Prepare`` hook for the ``ray`` backend."""

    def __init__(self, store: RaySettingsStore, hub: EventHub) -> None:
        self._store = store
        self._hub = hub

    def __call__(
        self, project: Project, body: JobCreate, policy: UrlPolicy
    ) -> tuple[str | None, dict[str, Any]]:
        config = parse_config(RayJobConfig, "Ray", body.config)
        location_for(self._store.cluster(project.id), "check")  # refuses unusable settings
        folder = Path(project.path)
        if config.snapshot:
            return head_commit(folder), config.model_dump(exclude_none=True)

        def committed() -> None:
            self._hub.emit(project.id, GitChanged(op="commit"))

        return committed_head(folder, body, committed), config.model_dump(exclude_none=True)
