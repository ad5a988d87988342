"""Moving work tree and index between two trees with ``git read-tree -m -u`` (git's own
checkout), at git's speed.

git reads a repository's ``.git/config``, and that file may name programs (``core.fsmonitor``,
filter drivers a ``.gitattributes`` selects) or another work tree (``core.worktree``). So git runs
here against a stand-in git folder holding only a minimal config of ours, with the real object
store, index and work tree given by ``GIT_OBJECT_DIRECTORY``, ``GIT_INDEX_FILE`` and
``GIT_WORK_TREE``; system and global config are off as for every transfer (``gitcli.py``). The
index is written under git's own ``index.lock``, as any git command writes it.

The paths that differ come from ``git diff-tree``; the caller checks them (unsafe paths, local
changes) before ``move`` writes anything.
"""

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dulwich.objects import ObjectID
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict
from server.core.leftovers import scratch_prefix
from server.gitflow.gitcli import git_env, git_options

_CONFIG = b"[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
Entry = tuple[bytes, int, bytes]


def usable(repo: Repo) -> bool:
    """Whether git may work on ``repo`` this way: a plain SHA-1 repository with a work tree."""
    config = repo.get_config()
    try:
        version = config.get((b"core",), b"repositoryformatversion")
    except KeyError:
        version = b"0"
    return version.strip() == b"0" and not repo.bare


@contextmanager
def stand_in(repo: Repo, head: ObjectID | None = None) -> Iterator[dict[str, str]]:
    """git's environment for ``repo`` (``GIT_DIR`` is the stand-in); its HEAD is detached at
    ``head``, or an unborn branch."""
    with tempfile.TemporaryDirectory(prefix=scratch_prefix("git")) as gitdir:
        os.mkdir(os.path.join(gitdir, "refs"))
        Path(gitdir, "HEAD").write_bytes(head + b"\n" if head else b"ref: refs/heads/main\n")
        Path(gitdir, "config").write_bytes(_CONFIG)
        control = repo.controldir()
        env = git_env()
        env.update(GIT_DIR=gitdir, GIT_OBJECT_DIRECTORY=os.path.join(control, "objects"),
                   GIT_INDEX_FILE=repo.index_path(), GIT_WORK_TREE=repo.path)
        yield env


def _git(env: dict[str, str], cwd: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *git_options(), *args], cwd=cwd, env=env, capture_output=True,
                          stdin=subprocess.DEVNULL)


def rev_list(repo: Repo, starts: list[ObjectID]) -> list[ObjectID] | None:
    """``git rev-list --topo-order`` of ``starts``; None when git cannot answer for this
    repository (another format, a shallow clone, grafts, an error)."""
    control = repo.controldir()
    if not usable(repo) or any(os.path.exists(os.path.join(control, name))
                               for name in ("shallow", os.path.join("info", "grafts"))):
        return None
    with stand_in(repo) as env:
        done = _git(env, repo.path, "rev-list", "--topo-order", *(s.decode() for s in starts), "--")
    if done.returncode != 0:
        return None
    return [ObjectID(line) for line in done.stdout.split()]


def differences(repo: Repo, old_tree: ObjectID, new_tree: ObjectID) -> tuple[set[bytes], list[Entry]]:
    """Every path that differs, and the ``(path, mode, sha)`` entries the new tree brings."""
    with stand_in(repo) as env:
        done = _git(env, repo.path, "diff-tree", "-r", "-z", "--no-renames", old_tree.decode(),
                    new_tree.decode())
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode("utf-8", "replace"))
    fields = done.stdout.split(b"\0")
    touched: set[bytes] = set()
    incoming: list[Entry] = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta:
            continue
        _old_mode, new_mode, _old_sha, new_sha, status = meta[1:].split(b" ")
        touched.add(path)
        if status != b"D":
            incoming.append((path, int(new_mode, 8), new_sha))
    return touched, incoming


def move(repo: Repo, old_tree: ObjectID, new_tree: ObjectID, action: str) -> None:
    """Write the change from ``old_tree`` to ``new_tree`` into the index and work tree.

    The index's stat data is refreshed first, as ``git checkout`` does: a file written back
    without an index update (discard) would otherwise count as changed."""
    with stand_in(repo) as env:
        _git(env, repo.path, "update-index", "-q", "--refresh")
        done = _git(env, repo.path, "read-tree", "-m", "-u", old_tree.decode(), new_tree.decode())
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace")
        files = sorted({line.strip() for line in text.splitlines() if line.startswith(("\t", "    "))})
        raise Conflict(f"{action} could not update the work tree: {text.strip().splitlines()[0]}",
                       code=ErrorCode.LOCAL_CHANGES, files=files)
