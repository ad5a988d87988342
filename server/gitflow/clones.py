"""Clone into a new or empty folder: ``git clone`` (``cliclone.py``), or our own transport for a
caller whose URL policy checks every connection; a failed clone leaves no folder behind.

As with the other remote operations (``remotes.py``): credentials are passed per call and never
written to ``.git/config``, and every message is redacted.
"""

import os
import shutil
import threading
from pathlib import Path

from dulwich.diff_tree import tree_changes
from dulwich.objects import ZERO_SHA
from dulwich.refs import Ref
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict
from server.gitflow.branches import HEADS, REMOTES
from server.gitflow.cliclone import Cancelled, clone_with_git
from server.gitflow.gitcli import OnStep, Step, parse_progress
from server.gitflow.remotes import Credentials, add_remote, network_errors
from server.gitflow.repo import SafeRepo
from server.gitflow.tags import take_remote_tags
from server.gitflow.transport import Progress, check_url, open_client, progress_sink, split_credentials
from server.gitflow.trees import get_commit
from server.gitflow.urlpolicy import UNRESTRICTED, UrlPolicy
from server.gitflow.worktree import check_incoming, write_changes


def clone(
    url: str,
    dest: str | os.PathLike[str],
    username: str | None = None,
    password: str | None = None,
    timeout: float = 30.0,
    progress: Progress | None = None,
    policy: UrlPolicy = UNRESTRICTED,
    on_step: OnStep | None = None,
    cancel: threading.Event | None = None,
) -> str | None:
    """Clone ``url`` into the new or empty folder ``dest``; returns the checked-out branch.

    ``git clone`` does the work (``cliclone.py``), except for callers whose URL policy is
    restricted: their connections must each be checked (``urlpolicy.py``), which only our own
    transport can do. ``on_step`` gets parsed progress, ``progress`` its text; setting ``cancel``
    stops the transfer. Whatever the outcome but success, the folder is removed again.
    """
    url = check_url(url)
    policy.check(url)
    clean, url_user, url_password = split_credentials(url)
    folder = Path(dest)
    if folder.exists() and any(folder.iterdir()):
        raise Conflict("the destination folder is not empty", code=ErrorCode.FOLDER_NOT_EMPTY)
    created = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    credentials = (username or url_user, password or url_password)
    steps = _step_sink(on_step, progress, cancel)
    try:
        if not policy.restricted:
            return clone_with_git(clean, folder, credentials, timeout, steps, cancel)
        repo = SafeRepo.init(str(folder))
        try:
            return _clone_into(repo, clean, credentials, timeout, _texts(steps), policy)
        finally:
            repo.close()
    except BaseException:
        shutil.rmtree(folder) if created else _empty_folder(folder)
        raise


def _texts(steps: OnStep) -> Progress:
    return lambda text: steps(parse_progress(text))


def _step_sink(on_step: OnStep | None, progress: Progress | None, cancel: threading.Event | None) -> OnStep:
    def sink(step: Step) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if on_step is not None:
            on_step(step)
        if progress is not None:
            progress(step.text)

    return sink


def _clone_into(
    repo: Repo, url: str, credentials: Credentials, timeout: float, progress: Progress | None,
    policy: UrlPolicy,
) -> str | None:
    add_remote(repo, "origin", url, policy)
    user, password = credentials
    client, path = open_client(url, user, password, timeout, policy)
    with network_errors(client, password):
        result = client.fetch(path, repo, progress=progress_sink(progress, password))
    fetch_refs = {r: s for r, s in result.refs.items() if r.startswith(HEADS) and s and s != ZERO_SHA}
    for ref, sha in fetch_refs.items():
        repo.refs.set_if_equals(Ref(REMOTES + b"origin/" + ref[len(HEADS) :]), None, sha, message=b"clone")
    take_remote_tags(repo, result.refs)
    default = (result.symrefs or {}).get(Ref(b"HEAD")) or next(iter(sorted(fetch_refs)), None)
    if default is None or default not in fetch_refs:
        return None
    name = default[len(HEADS) :]
    repo.refs.set_symbolic_ref(Ref(REMOTES + b"origin/HEAD"), Ref(REMOTES + b"origin/" + name))
    tree = get_commit(repo, fetch_refs[default]).tree
    changes = list(tree_changes(repo.object_store, None, tree))
    check_incoming(repo, changes)
    repo.refs.set_if_equals(Ref(default), None, fetch_refs[default], message=b"clone: from origin")
    repo.refs.set_symbolic_ref(Ref(b"HEAD"), default)
    config = repo.get_config()
    config.set((b"branch", name), b"remote", b"origin")
    config.set((b"branch", name), b"merge", default)
    config.write_to_path()
    write_changes(repo, None, tree, changes)
    return name.decode()


def _empty_folder(folder: Path) -> None:
    for child in folder.iterdir():
        shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
