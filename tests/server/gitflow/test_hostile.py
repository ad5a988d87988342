"""Hostile repositories: nothing in a repository's config runs, no tree escapes the work tree."""

import os
from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit, Tree
from dulwich.repo import Repo

from server.core.errors import Invalid
from server.gitflow import service
from tests.fakes.git_remotes import bare_repo, git
from tests.server.gitflow.conftest import write


def plant_everything(work: Path, marker: Path) -> None:
    """Every way a repository's own files could name a command to run."""
    script = f"#!/bin/sh\ntouch {marker}\n"
    hooks = work / ".git/hooks"
    for name in ("pre-commit", "commit-msg", "post-commit", "post-checkout", "post-merge"):
        (hooks / name).write_text(script)
        (hooks / name).chmod(0o755)
    elsewhere = work / ".git/other-hooks"
    elsewhere.mkdir()
    (elsewhere / "post-commit").write_text(script)
    (elsewhere / "post-commit").chmod(0o755)
    command = f"touch {marker}"
    for key, value in (
        ("core.hooksPath", str(elsewhere)),
        ("core.fsmonitor", command),
        ("filter.evil.clean", command),
        ("filter.evil.smudge", command),
        ("filter.evil.process", command),
        ("merge.evil.driver", command),
        ("commit.gpgSign", "true"),
        ("gpg.program", str(hooks / "pre-commit")),
    ):
        git("config", key, value, cwd=work)
    write(work, ".gitattributes", "* filter=evil merge=evil\n")


def test_planted_hooks_config_and_filters_never_run(work: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    plant_everything(work, marker)
    write(work, "a.txt", "edited\n")
    service.status(work)
    service.stage(work, [".gitattributes", "a.txt"])
    service.commit(work, "with hooks planted")
    service.create_branch(work, "other")
    service.checkout(work, "other")
    write(work, "a.txt", "on other\n")
    service.stage(work, ["a.txt"])
    service.commit(work, "a.txt differs between the branches, so checkouts write it")
    write(work, "a.txt", "stash me\n")
    service.stash_push(work, "s")
    service.stash_apply(work, 0, pop=True)
    service.discard(work, ["a.txt"])
    service.checkout(work, "main")
    service.checkout(work, "other")
    assert (work / "a.txt").read_text() == "on other\n"
    assert not marker.exists()


def test_merge_driver_from_config_never_runs(work: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    origin = bare_repo(tmp_path / "origin.git")
    service.add_remote(work, "origin", origin.as_uri())
    service.push(work)
    bob = tmp_path / "bob"
    git("clone", "-q", origin.as_uri(), str(bob))
    write(bob, "a.txt", "alpha\nbob\n")
    git("-c", "user.name=B", "-c", "user.email=b@x", "commit", "-q", "-am", "bob", cwd=bob)
    git("push", "-q", "origin", "main", cwd=bob)
    plant_everything(work, marker)
    write(work, "a.txt", "ours\nalpha\n")
    service.stage(work, ["a.txt", ".gitattributes"])
    service.commit(work, "ours")
    assert service.pull(work).outcome in ("merged", "conflicts")
    assert not marker.exists()


def hostile_commit(repo_path: Path, parent: str, entries: list[tuple[bytes, int, bytes | Tree]]) -> bytes:
    """A commit whose root tree holds ``(name, mode, content)`` entries exactly as given."""
    with Repo(str(repo_path)) as repo:
        base = repo[repo[parent.encode()].tree]
        tree = Tree()
        for name, mode, sha in base.iteritems():
            tree.add(name, mode, sha)
        for name, mode, content in entries:
            if isinstance(content, Tree):
                repo.object_store.add_object(content)
                tree.add(name, mode, content.id)
            else:
                blob = Blob.from_string(content)
                repo.object_store.add_object(blob)
                tree.add(name, mode, blob.id)
        repo.object_store.add_object(tree)
        commit = Commit()
        commit.tree, commit.parents = tree.id, [parent.encode()]
        commit.author = commit.committer = b"Mallory <m@example.com>"
        commit.author_time = commit.commit_time = 1_700_000_000
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"innocent\n"
        repo.object_store.add_object(commit)
        return commit.id


def store_hooks_tree(repo_path: Path) -> Tree:
    """A tree ``hooks/post-checkout`` (its blob and subtree stored), to be named ``.git``."""
    hook = Blob.from_string(b"#!/bin/sh\nexit 0\n")
    hooks = Tree()
    hooks.add(b"post-checkout", 0o100755, hook.id)
    with Repo(str(repo_path)) as repo:
        repo.object_store.add_object(hook)
        repo.object_store.add_object(hooks)
    dotgit = Tree()
    dotgit.add(b"hooks", 0o040000, hooks.id)
    return dotgit


HOSTILE = [
    pytest.param([(b"..", 0o100644, b"escape")], id="dot-dot"),
    pytest.param([(b"git~1", 0o100644, b"ntfs short name")], id="git~1"),
    pytest.param([(b".GIT", 0o100644, b"case folded")], id=".GIT"),
    pytest.param([(b"link", 0o120000, b"/etc")], id="absolute-symlink"),
    pytest.param([(b"up", 0o120000, b"../../outside")], id="escaping-symlink"),
]


@pytest.mark.parametrize("entries", HOSTILE)
def test_hostile_branch_checkout_is_refused(work: Path, entries: list) -> None:
    head = git("rev-parse", "HEAD", cwd=work).strip()
    evil = hostile_commit(work, head, entries)
    git("update-ref", "refs/heads/evil", evil.decode(), cwd=work)
    with pytest.raises(Invalid) as caught:
        service.checkout(work, "evil")
    assert caught.value.code == "unsafe_paths"
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=work).strip() == "main"
    assert sorted(os.listdir(work)) == [".git", "a.txt", "src"]


def test_dot_git_folder_in_a_pulled_tree_is_refused(work: Path, tmp_path: Path) -> None:
    origin = bare_repo(tmp_path / "origin.git")
    service.add_remote(work, "origin", origin.as_uri())
    service.push(work)
    head = git("rev-parse", "HEAD", cwd=work).strip()
    dotgit = store_hooks_tree(origin)
    evil = hostile_commit(origin, head, [(b".git", 0o040000, dotgit)])
    git("update-ref", "refs/heads/main", evil.decode(), cwd=origin)
    with pytest.raises(Invalid):
        service.pull(work)
    assert not (work / ".git/hooks/post-checkout").exists()
    assert git("rev-parse", "HEAD", cwd=work).strip() == head


def test_hostile_stash_is_refused_and_kept(work: Path) -> None:
    head = git("rev-parse", "HEAD", cwd=work).strip()
    evil = hostile_commit(work, head, [(b"up", 0o120000, b"../../outside")])
    with Repo(str(work)) as repo:
        stash = Commit()
        stash.tree = repo[evil].tree
        stash.parents = [head.encode(), evil]
        stash.author = stash.committer = b"Mallory <m@example.com>"
        stash.author_time = stash.commit_time = 1_700_000_000
        stash.author_timezone = stash.commit_timezone = 0
        stash.message = b"On main: evil\n"
        repo.object_store.add_object(stash)
        repo.refs.set_if_equals(
            b"refs/stash", None, stash.id, message=b"On main: evil", committer=b"Mallory <m@example.com>"
        )
    with pytest.raises(Invalid):
        service.stash_apply(work, 0, pop=True)
    assert not os.path.lexists(work / "up")
    assert len(service.stashes(work)) == 1
