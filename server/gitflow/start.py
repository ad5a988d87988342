"""Start tracking a folder with Git: a new repository whose first commit holds the folder's files.

New projects (a template, an upload, a market install, an empty start) and *Start tracking with
Git* on an existing project go through here. The commit is made like any other (no hook runs,
``commits.py``): every file that is not ignored is staged, ignored ones (a ``.gitignore`` the
folder carries, or the default one written when it has none) stay out.
"""

import os
import shutil
from pathlib import Path

from server.core.errors import AppError
from server.gitflow import commits as commit_ops
from server.gitflow import staging
from server.gitflow.models import CommitInfo
from server.gitflow.repo import init_repo, writing
from server.gitflow.status import decode, raw_status

INITIAL_MESSAGE = "Initial commit"
# What runs leave behind, kept out of history: job outputs and artifacts, environments, caches.
DEFAULT_IGNORE = "outputs/\nartifacts/\n.venv/\n__pycache__/\n"


def write_default_ignore(folder: str | os.PathLike[str]) -> bool:
    """Write the default ``.gitignore`` when the folder has none; True when it was written."""
    path = Path(folder) / ".gitignore"
    if path.exists() or path.is_symlink():
        return False
    path.write_text(DEFAULT_IGNORE)
    return True


def start_tracking(
    folder: str | os.PathLike[str],
    author: str | None = None,
    fallback_author: str | None = None,
    message: str = INITIAL_MESSAGE,
    branch: str = "main",
) -> CommitInfo | None:
    """A new repository in ``folder`` with one commit of its files (None when it has none); the
    default ``.gitignore`` is written first when the folder has none.

    The author is found as for any commit (``commits.identity``); with none known the commit is
    a 422 ``no_identity`` and the folder is left as it was, without a repository."""
    init_repo(folder, branch)
    wrote_ignore = False
    try:
        wrote_ignore = write_default_ignore(folder)
        with writing(folder) as repo:
            who = commit_ops.identity(repo, author, fallback_author).decode("utf-8")
            files = [decode(path) for path in raw_status(repo).untracked]
            if not files:
                return None
            staging.stage(repo, files)
            return commit_ops.commit(repo, message, author=who)
    except (AppError, OSError):
        shutil.rmtree(Path(folder) / ".git", ignore_errors=True)
        if wrote_ignore:
            (Path(folder) / ".gitignore").unlink(missing_ok=True)
        raise
