"""Clone with ``git clone``: as fast as git because it is git, with our safety rules kept.

The transfer is ``git clone --no-checkout`` in the hermetic environment of ``gitcli.py`` (no
hooks, no system or global config, only our schemes, credentials through the environment). Before
a file is written the tree of the new HEAD is checked as a whole like every other tree we write
(``paths.check_entries``: no ``.git``, ``..``, NTFS/HFS spellings, symlinks leaving the work
tree); only then ``git checkout`` fills the work tree and the index, so a status right after
agrees with ``git status``. Submodules stay gitlinks with an empty folder, as ``git clone``
leaves them without ``--recurse-submodules``.
"""

import subprocess
import tempfile
import threading
from pathlib import Path

from dulwich.repo import Repo

from server.core.leftovers import scratch_prefix
from server.gitflow.gitcli import (
    Cancelled,
    GitRun,
    OnStep,
    Step,
    git_env,
    git_options,
    parse_progress,
    transfer_error,
)
from server.gitflow.paths import check_entries

__all__ = ["Cancelled", "clone_with_git"]


def clone_with_git(
    url: str, folder: Path, credentials: tuple[str | None, str | None], timeout: float,
    on_step: OnStep | None = None, cancel: threading.Event | None = None,
) -> str | None:
    """Clone the checked, credential-free ``url`` into the new empty ``folder``; the branch."""
    username, password = credentials
    env = git_env(username, password)
    options = git_options(credentials=bool(username or password))
    report = on_step or (lambda step: None)
    with tempfile.TemporaryDirectory(prefix=scratch_prefix("clone")) as template:
        args = [*options, "clone", "--progress", "--no-checkout", "--no-recurse-submodules",
                f"--template={template}", "--origin", "origin", "--", url, str(folder)]
        code, lines = GitRun(args, folder.parent, env, timeout, cancel).run(
            lambda line: report(parse_progress(line)))
    if code != 0:
        raise transfer_error(lines, password)
    branch = _head_branch(folder, env)
    if branch is None:
        return None
    total = _check_tree(folder, env)
    report(Step("checkout", 0, total, None, f"Updating files: 0% (0/{total})"))
    checkout = GitRun([*git_options(), "checkout", "--progress", "--force", "--no-recurse-submodules"],
                      folder, env, timeout, cancel)
    code, lines = checkout.run(lambda line: report(parse_progress(line)))
    if code != 0:
        raise transfer_error(lines, password)
    report(Step("checkout", total, total, None, f"Updating files: 100% ({total}/{total}), done."))
    return branch


def _git(folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *git_options(), *args], cwd=folder, env=env, capture_output=True,
                          stdin=subprocess.DEVNULL)


def _head_branch(folder: Path, env: dict[str, str]) -> str | None:
    """HEAD's branch after the clone; None for a remote with no commits."""
    if _git(folder, env, "rev-parse", "-q", "--verify", "HEAD^{commit}").returncode != 0:
        return None
    ref = _git(folder, env, "symbolic-ref", "-q", "--short", "HEAD")
    return ref.stdout.decode().strip() or None


def _check_tree(folder: Path, env: dict[str, str]) -> int:
    """Refuse unsafe paths in HEAD's tree (a 422 listing them); the number of entries."""
    listed = _git(folder, env, "ls-tree", "-r", "-z", "--full-tree", "HEAD")
    entries = []
    for record in listed.stdout.split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            mode, _, sha = meta.split(b" ")
            entries.append((path, int(mode, 8), sha))
    with Repo(str(folder)) as repo:
        check_entries(repo.object_store, entries)
    return len(entries)
