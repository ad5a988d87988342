"""What every cloud backend checks before a job row exists: its ``config`` against the backend's
model, and the project's uncommitted changes (listed in a refusal, or committed when asked with
``commit_and_push``). PAI-DLC then pushes (``server/training/paidlc/submit.py``); Ray uploads the
commit itself (``server/training/ray/prepare.py``).
"""

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.gitflow import service as git
from server.gitflow.models import Status
from server.training.models import JobCreate

LISTED_PATHS = 20

M = TypeVar("M", bound=BaseModel)


def parse_config(model: type[M], backend: str, config: dict[str, Any]) -> M:
    """``config`` as ``model``; the first problem found names the field (``bad_config``)."""
    try:
        return model.model_validate(config)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise Invalid(f"bad {backend} job config: {where}: {error['msg']}",
                      code=ErrorCode.BAD_CONFIG) from exc


def uncommitted_paths(status: Status) -> list[str]:
    changes = status.staged + status.unstaged + status.untracked + status.conflicted
    return sorted({change.path for change in changes})


def listed(uncommitted: list[str]) -> str:
    """The first ``LISTED_PATHS`` paths, and how many more there are."""
    shown = ", ".join(uncommitted[:LISTED_PATHS])
    more = f" and {len(uncommitted) - LISTED_PATHS} more" if len(uncommitted) > LISTED_PATHS else ""
    return f"uncommitted changes: {shown}{more}"


def commit_all(folder: Path, status: Status, body: JobCreate) -> None:
    if status.conflicted:
        raise Conflict("resolve the conflicted files before committing",
                       code=ErrorCode.UNRESOLVED_CONFLICTS)
    if not body.message or not body.message.strip():
        raise Invalid("give a commit message", code=ErrorCode.NO_MESSAGE)
    unstaged = sorted({c.path for c in status.unstaged + status.untracked})
    if unstaged:
        git.stage(folder, unstaged)
    git.commit(folder, body.message, author=body.author)
