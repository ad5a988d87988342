"""The first status of a large work tree: ``git status`` answers while ours warms up behind it.

A running server keeps what a status needs (the parsed index, ``indexfile``; HEAD's flattened
tree, ``trees``; every tracked file's stat, ``fsmonitor``), so a status costs a few ms. The first
status of a work tree after start-up must build all of it in Python: parse the index and HEAD's
trees, stat every file and set the watches, 4–6× ``git status`` on 10,000 files. So when the
monitor does not know a work tree yet and its index is large, ``git status --porcelain=v2``
answers (git's C code: git's own answer, at git's speed) and a background thread runs our status
once, discarding its answer, so that the next status finds everything kept.

git runs as checkout's ``read-tree`` does (``readtree.stand_in``): against a stand-in git folder
holding only our minimal config, so nothing in the repository's ``.git/config`` runs
(``core.fsmonitor``, filter drivers), with HEAD's commit written there and the real objects, index
and work tree. ``--no-optional-locks`` keeps it from refreshing the index: a status writes
nothing. The settings our status reads are passed from the repository's config as ours reads them
(``core.filemode``, ``core.ignorecase``, ``core.excludesFile``, ``.git/info/exclude``), and the
answer is read into the same form as ours: renames paired by blob id (``--no-renames``), a gitlink
whose folder is there never a change, a nested repository and a save's temp file never untracked.
Whenever git cannot answer (not installed, another repository format, an error), ours does.
"""

import logging
import os
import posixpath
import shutil
import subprocess
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path

from dulwich.ignore import default_user_ignore_filter_path
from dulwich.objects import ObjectID
from dulwich.repo import Repo

from server.core.fsutil import is_temp_name
from server.gitflow.fsmonitor import monitor
from server.gitflow.gitcli import git_options
from server.gitflow.models import ChangeKind
from server.gitflow.readtree import stand_in, usable
from server.gitflow.repo import open_repo
from server.gitflow.status import RawStatus, pair_renames, raw_status
from server.gitflow.trees import head_id

log = logging.getLogger(__name__)

# Below this index size (about 1,000 entries) our own first status is about as fast as starting git.
MIN_INDEX_BYTES = 100_000
_KINDS: dict[bytes, ChangeKind] = {b"M": "modified", b"T": "typechange", b"D": "deleted", b"A": "added"}
_GITLINK = b"160000"

Later = Callable[[Callable[[], None]], None]  # takes a task to run after the answer is sent

_warming: set[str] = set()
_warming_lock = threading.Lock()


def first_status(repo: Repo, later: Later | None = None) -> RawStatus | None:
    """git's answer when ``repo``'s work tree is cold and large (ours warms up in the background);
    None when our own status should answer. With ``later`` (a route's background tasks), the
    warm-up is handed to it, to start once the answer is sent: started at once, its Python work
    would take the interpreter from the answer's (the first GET 2.2× git's status, 1.5× without)."""
    if not (repo.path in _warming or monitor.cold(os.fsencode(repo.path) + b"/")) or not _large(repo):
        return None
    if shutil.which("git") is None or not usable(repo):
        return None
    raw = git_status(repo)
    if raw is not None:
        # Not marked as warming until it starts: should the answer never be sent, the next
        # status finds the work tree still cold and hands the warm-up on again.
        (later or _now)(partial(_warm_up, repo.path))
    return raw


def _now(task: Callable[[], None]) -> None:
    task()


def warming(folder: str | os.PathLike[str]) -> bool:
    """Whether the background status of the work tree at ``folder`` is still running."""
    return str(Path(folder)) in _warming


def _large(repo: Repo) -> bool:
    try:
        return os.stat(repo.index_path()).st_size >= MIN_INDEX_BYTES
    except OSError:
        return False


def _warm_up(root: str) -> None:
    with _warming_lock:
        if root in _warming:
            return
        _warming.add(root)
    threading.Thread(target=_warm, args=(root,), name="git-status-warm-up", daemon=True).start()


def _warm(root: str) -> None:
    try:
        with open_repo(root) as repo:
            raw_status(repo)
    except Exception:  # the folder went away or changed under us: the next status does it
        log.debug("warming up the status of %s failed", root, exc_info=True)
    finally:
        with _warming_lock:
            _warming.discard(root)


def git_status(repo: Repo) -> RawStatus | None:
    """``git status``'s answer in our form, or None when git could not give one."""
    stack = repo.get_config_stack()  # as status.py and dulwich's ignore rules read them
    settings = {
        "core.filemode": str(repo.get_config().get_boolean((b"core",), b"filemode", True)).lower(),
        "core.ignorecase": str(stack.get_boolean((b"core",), b"ignorecase", False)).lower(),
        "core.excludesFile": os.path.expanduser(default_user_ignore_filter_path(stack)),
    }
    options = [arg for key, value in settings.items() for arg in ("-c", f"{key}={value}")]
    with stand_in(repo, head_id(repo)) as env:
        _copy_excludes(repo, Path(env["GIT_DIR"]))
        done = subprocess.run(
            ["git", "--no-optional-locks", *git_options(), *options, "status", "--porcelain=v2", "-z",
             "--untracked-files=all", "--no-renames", "--ignore-submodules=dirty"],
            cwd=repo.path, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        log.info("git status failed, our own status answers: %s", done.stderr[-400:])
        return None
    return parse_porcelain_v2(done.stdout)


def _copy_excludes(repo: Repo, gitdir: Path) -> None:
    try:
        data = Path(repo.controldir(), "info", "exclude").read_bytes()
    except OSError:
        return
    (gitdir / "info").mkdir()
    (gitdir / "info" / "exclude").write_bytes(data)


def parse_porcelain_v2(output: bytes) -> RawStatus:
    """``git status --porcelain=v2 -z --no-renames`` (``--untracked-files=all``) as ``RawStatus``."""
    result = RawStatus()
    added: dict[bytes, bytes] = {}
    deleted: dict[bytes, bytes] = {}
    untracked: list[bytes] = []
    for record in output.split(b"\0"):
        kind = record[:2]
        if kind == b"1 ":
            _ordinary(record.split(b" ", 8), result, added, deleted)
        elif kind == b"u ":
            result.conflicted.add(record.split(b" ", 10)[10])
        elif kind == b"? ":
            path = record[2:]
            name = posixpath.basename(path).decode("utf-8", "surrogateescape")
            if not path.endswith(b"/") and not is_temp_name(name):
                untracked.append(path)
    pair_renames(result, added, deleted)
    result.untracked = sorted(untracked)
    return result


def _ordinary(fields: list[bytes], result: RawStatus, added: dict[bytes, bytes],
              deleted: dict[bytes, bytes]) -> None:
    """One ``1 XY sub mH mI mW hH hI path`` record."""
    _, xy, _sub, _m_head, m_index, _m_work, h_head, h_index, path = fields
    staged, unstaged = xy[:1], xy[1:]
    if staged == b"A":
        added[path] = ObjectID(h_index)
    elif staged == b"D":
        deleted[path] = ObjectID(h_head)
    elif staged in _KINDS:
        result.staged[path] = _KINDS[staged]
    if unstaged in _KINDS and unstaged != b"A" and not (m_index == _GITLINK and unstaged == b"M"):
        result.unstaged[path] = _KINDS[unstaged]
