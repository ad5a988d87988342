"""Which commit a check result belongs to: HEAD, when every file the budgets read (the models,
their references, pipelines and their inputs, ``mnnwb.toml``) is on disk exactly as HEAD has it."""

import hashlib
from collections.abc import Collection
from pathlib import Path

from server.checks.budgets import CONFIG_FILE
from server.checks.models import Budget
from server.core.errors import AppError
from server.files.paths import resolve
from server.gitflow.diff import blob_at
from server.gitflow.repo import open_repo


def _disk_blob_id(path: Path) -> str | None:
    if not path.is_file():
        return None
    # Git names a blob by this SHA-1; it identifies content here, it protects nothing.
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def commit_state(root: Path, budgets: list[Budget], others: Collection[str] = ()) -> tuple[str | None, bool]:
    """(HEAD's id or None, whether the budgets' files, and ``others``, are unchanged since HEAD)."""
    paths = {CONFIG_FILE, *(b.model for b in budgets), *(b.reference for b in budgets if b.reference)}
    paths |= set(others)
    try:
        with open_repo(root) as repo:
            head = repo.head().decode()
            for rel in sorted(paths):
                _, blob_id = blob_at(repo, "HEAD", rel)
                if blob_id != _disk_blob_id(resolve(root, rel)):
                    return head, False
    except (AppError, KeyError):
        # Not a repository, no commit yet, or a budget file HEAD does not hold.
        return None, False
    return head, True
