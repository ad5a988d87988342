"""The job's ``working_dir``: the project's tree at the job's commit (or, when the user chose
it, a snapshot of the work tree), plus the small script that runs the command on the cluster,
and the ``runtime_env`` built from the project's requirements."""

import shutil
import stat
from pathlib import Path, PurePosixPath
from typing import Any

from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid

JOB_SCRIPT = "_mnnwb_ray_job.py"
REQUIREMENTS = "requirements.txt"
# Never shipped with a snapshot: Git's data, local environments, and what jobs and pulls wrote.
SNAPSHOT_SKIPS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", "outputs",
                            "artifacts"})


def _safe_target(root: Path, rel: bytes) -> Path:
    parts = PurePosixPath(rel.decode("utf-8", "surrogateescape")).parts
    if not parts or any(part in ("", ".", "..") for part in parts) or parts[0] == ".git":
        raise Invalid(f"the commit holds a path that cannot be exported: {rel!r}",
                      code=ErrorCode.BAD_TREE_PATH)
    return root.joinpath(*parts)


def export_commit(project: Path, commit: str, dest: Path) -> None:
    """Write the files of ``commit`` into ``dest`` (symlinks and submodules are left out)."""
    with Repo(str(project)) as repo:
        store = repo.object_store
        target_commit = store[ObjectID(commit.encode())]
        if not isinstance(target_commit, Commit):
            raise Invalid(f"{commit} is not a commit", code=ErrorCode.BAD_COMMIT)
        for entry in iter_tree_contents(store, target_commit.tree):
            if entry.path is None or entry.mode is None or entry.sha is None:
                continue
            if not stat.S_ISREG(entry.mode):
                continue
            blob = store[entry.sha]
            if not isinstance(blob, Blob):
                continue
            target = _safe_target(dest, entry.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob.as_raw_string())
            if entry.mode & 0o111:
                target.chmod(0o755)


def _skipped(folder: str, names: list[str]) -> list[str]:
    # Symlinks are left out: one pointing outside the project must not ship what it points at.
    return [n for n in names if n in SNAPSHOT_SKIPS or Path(folder, n).is_symlink()]


def copy_snapshot(project: Path, dest: Path) -> None:
    """Copy the work tree as it is now, without the folders in ``SNAPSHOT_SKIPS`` or symlinks."""
    shutil.copytree(project, dest, dirs_exist_ok=True, ignore=_skipped)


def add_job_script(dest: Path) -> None:
    shutil.copyfile(Path(__file__).with_name("job_main.py"), dest / JOB_SCRIPT)


def requirements(folder: Path) -> list[str]:
    """The requirement lines of ``requirements.txt`` (comments and options left out)."""
    path = folder / REQUIREMENTS
    if not path.is_file():
        return []
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("-")]


def runtime_env(folder: Path, env: dict[str, str]) -> dict[str, Any]:
    """Ray's ``runtime_env``: the packed folder, the job's variables, pip only when needed."""
    result: dict[str, Any] = {"working_dir": str(folder), "env_vars": env}
    packages = requirements(folder)
    if packages:
        result["pip"] = {"packages": packages, "pip_check": False}
    return result
