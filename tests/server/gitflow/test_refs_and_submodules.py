"""Clone and fetch keep every ref git keeps; submodules stay gitlinks; tags are revisions.

Each test checks our answer against the ``git`` CLI on the same repository.
"""

import shutil
from pathlib import Path

import pytest

from server.core.errors import BadGateway, Invalid
from server.gitflow import service
from tests.fakes.git_remotes import bare_repo, git, git_daemon
from tests.server.gitflow.conftest import write


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare repository to serve: ``main`` with a submodule and two tags (one annotated),
    ``feature`` one commit ahead with an annotated tag, ``plain`` without the submodule."""
    tmp_path = tmp_path_factory.mktemp("upstream")
    sub = tmp_path / "sub"
    git("init", "-q", "-b", "main", str(sub))
    write(sub, "s.txt", "s\n")
    git("add", "-A", cwd=sub)
    git("commit", "-q", "-m", "sub", cwd=sub)
    src = tmp_path / "src"
    git("init", "-q", "-b", "main", str(src))
    write(src, "a.txt", "a\n")
    git("add", "-A", cwd=src)
    git("commit", "-q", "-m", "one", cwd=src)
    git("branch", "plain", cwd=src)
    git("tag", "v1", cwd=src)
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "libs/sub", cwd=src)
    git("commit", "-q", "-m", "add the submodule", cwd=src)
    git("tag", "-a", "v2", "-m", "release two", cwd=src)
    git("checkout", "-q", "-b", "feature", cwd=src)
    write(src, "f.txt", "f\n")
    git("add", "f.txt", cwd=src)
    git("commit", "-q", "-m", "feature work", cwd=src)
    git("tag", "-a", "vf", "-m", "feature tag", cwd=src)
    git("checkout", "-q", "main", cwd=src)
    base = tmp_path / "srv"
    base.mkdir()
    git("clone", "-q", "--bare", str(src), str(base / "p.git"))
    return base


@pytest.fixture
def upstream(served: Path, tmp_path: Path) -> Path:
    """A copy of ``served`` for one test to serve over ``git://`` and push to."""
    return Path(shutil.copytree(served, tmp_path / "srv"))


def clone(upstream: Path, dest: Path) -> Path:
    with git_daemon(upstream) as url:
        assert service.clone(url + "p.git", dest, timeout=10) == "main"
    return dest


def test_clone_keeps_branches_tags_and_the_submodule_as_a_gitlink(upstream: Path, tmp_path: Path) -> None:
    ours = clone(upstream, tmp_path / "ours")
    theirs = tmp_path / "theirs"
    git("clone", "-q", str(upstream / "p.git"), str(theirs))
    assert git("show-ref", cwd=ours) == git("show-ref", cwd=theirs)
    assert git("symbolic-ref", "refs/remotes/origin/HEAD", cwd=ours).strip() == "refs/remotes/origin/main"
    assert git("cat-file", "-t", "v2", cwd=ours).strip() == "tag"
    assert git("ls-files", "-s", cwd=ours) == git("ls-files", "-s", cwd=theirs)
    assert "160000" in git("ls-files", "-s", "libs/sub", cwd=ours)
    assert git("status", "--porcelain", cwd=ours) == ""
    git("fsck", "--no-progress", cwd=ours)
    assert service.status(ours).staged == service.status(ours).unstaged == []
    tags = {t.name: t for t in service.tags(ours)}
    assert sorted(tags) == ["v1", "v2", "vf"]
    assert tags["v2"].annotated and not tags["v1"].annotated
    assert tags["v2"].commit == git("rev-parse", "v2^{commit}", cwd=ours).strip()
    assert tags["v2"].message == "release two"


def test_commit_and_stash_leave_the_gitlink_alone(upstream: Path, tmp_path: Path) -> None:
    ours = clone(upstream, tmp_path / "ours")
    git("config", "user.name", "Ada", cwd=ours)
    git("config", "user.email", "ada@example.com", cwd=ours)
    write(ours, "a.txt", "changed\n")
    service.stash_push(ours, "wip")
    assert git("status", "--porcelain", cwd=ours) == ""
    service.stash_apply(ours, 0, pop=True)
    service.stage(ours, ["a.txt"])
    made = service.commit(ours, "edit a")
    ada = ("Ada", "ada@example.com")
    assert (made.author, made.author_email) == (made.committer, made.committer_email) == ada
    assert git("ls-tree", "HEAD", "libs/sub", cwd=ours).split()[:3] == git(
        "ls-tree", "origin/main", "libs/sub", cwd=ours
    ).split()[:3]
    assert git("status", "--porcelain", cwd=ours) == ""


def test_checkout_removes_and_restores_the_submodule_folder(upstream: Path, tmp_path: Path) -> None:
    ours = clone(upstream, tmp_path / "ours")
    service.checkout(ours, "plain")
    assert not (ours / "libs").exists()
    assert git("status", "--porcelain", cwd=ours) == ""
    service.checkout(ours, "main")
    assert (ours / "libs" / "sub").is_dir()
    assert git("status", "--porcelain", cwd=ours) == ""
    assert "160000" in git("ls-files", "-s", "libs/sub", cwd=ours)


def test_a_tag_is_a_revision_a_start_point_and_a_checkout(upstream: Path, tmp_path: Path) -> None:
    ours = clone(upstream, tmp_path / "ours")
    assert service.log(ours, 1, 0, "v2")[0].sha == git("rev-parse", "v2^{commit}", cwd=ours).strip()
    assert service.create_branch(ours, "hotfix", "v2").commit == git("rev-parse", "v2^{}", cwd=ours).strip()
    st = service.checkout(ours, "vf")
    assert st.branch is None
    assert git("rev-parse", "HEAD", cwd=ours).strip() == git("rev-parse", "vf^{commit}", cwd=ours).strip()
    assert "HEAD detached at vf" in git("status", cwd=ours)
    assert git("rev-parse", "main", cwd=ours) == git("rev-parse", "origin/main", cwd=ours)


def test_checkout_of_a_remote_branch_after_fetch_makes_the_tracking_branch(
    upstream: Path, tmp_path: Path
) -> None:
    ours = tmp_path / "ours"
    git("init", "-q", "-b", "main", str(ours))
    with git_daemon(upstream) as url:
        service.add_remote(ours, "origin", url + "p.git")
        fetched = service.fetch(ours, timeout=10)
    assert fetched.tags == ["v1", "v2", "vf"]
    assert service.checkout(ours, "origin/feature").branch == "feature"
    assert git("rev-parse", "--abbrev-ref", "feature@{upstream}", cwd=ours).strip() == "origin/feature"
    assert git("status", "--porcelain", cwd=ours) == ""


def test_fetch_adds_new_tags_and_never_moves_existing_ones(upstream: Path, tmp_path: Path) -> None:
    ours = clone(upstream, tmp_path / "ours")
    git("tag", "-f", "v1", "origin/feature", cwd=ours)  # a local tag of the same name stays as it is
    pusher = tmp_path / "pusher"
    git("clone", "-q", str(upstream / "p.git"), str(pusher))
    git("tag", "v3", "origin/feature", cwd=pusher)
    git("push", "-q", "origin", "v3", cwd=pusher)
    with git_daemon(upstream) as url:
        git("remote", "set-url", "origin", url + "p.git", cwd=ours)
        assert service.fetch(ours, timeout=10).tags == ["v3"]
    assert git("rev-parse", "v1", cwd=ours) == git("rev-parse", "origin/feature", cwd=ours)


def test_fast_forward_pull_needs_no_identity_but_a_merge_does(upstream: Path, tmp_path: Path) -> None:
    """No ``user.name`` anywhere: the fixtures empty HOME and the environment."""
    ours = clone(upstream, tmp_path / "ours")
    pusher = tmp_path / "pusher"
    git("clone", "-q", str(upstream / "p.git"), str(pusher))
    write(pusher, "new.txt", "n\n")
    git("add", "new.txt", cwd=pusher)
    git("commit", "-q", "-m", "new", cwd=pusher)
    git("push", "-q", "origin", "main", cwd=pusher)
    with git_daemon(upstream) as url:
        git("remote", "set-url", "origin", url + "p.git", cwd=ours)
        assert service.pull(ours, timeout=10).outcome == "fast_forward"
        assert (ours / "new.txt").read_text() == "n\n"
        write(pusher, "new.txt", "theirs\n")
        git("commit", "-q", "-am", "theirs", cwd=pusher)
        git("push", "-q", "origin", "main", cwd=pusher)
        write(ours, "mine.txt", "m\n")
        service.stage(ours, ["mine.txt"])
        service.commit(ours, "mine", author="Ada <ada@example.com>")
        before = git("rev-parse", "HEAD", cwd=ours)
        with pytest.raises(Invalid) as caught:
            service.pull(ours, timeout=10)
    assert caught.value.code == "no_identity"
    assert git("rev-parse", "HEAD", cwd=ours) == before
    assert git("status", "--porcelain", cwd=ours) == ""


def test_refs_label_commits_for_the_history(upstream: Path, tmp_path: Path) -> None:
    ours = clone(upstream, tmp_path / "ours")
    labels = {(r.kind, r.name): r.commit for r in service.refs(ours)}
    rev = {name: git("rev-parse", f"{name}^{{commit}}", cwd=ours).strip() for name in ("HEAD", "v2", "vf")}
    assert labels == {
        ("head", "HEAD"): rev["HEAD"],
        ("branch", "main"): rev["HEAD"],
        ("remote", "origin/main"): rev["HEAD"],
        ("remote", "origin/feature"): rev["vf"],
        ("remote", "origin/plain"): git("rev-parse", "origin/plain", cwd=ours).strip(),
        ("tag", "v1"): git("rev-parse", "v1", cwd=ours).strip(),
        ("tag", "v2"): rev["v2"],
        ("tag", "vf"): rev["vf"],
    }



def test_a_corrupt_remote_is_a_502_and_leaves_no_folder(tmp_path: Path) -> None:
    src = tmp_path / "src"
    git("init", "-q", "-b", "main", str(src))
    write(src, "a.txt", "a\n")
    write(src, "b.txt", "b\n")
    git("add", "-A", cwd=src)
    git("commit", "-q", "-m", "one", cwd=src)
    base = tmp_path / "srv"
    base.mkdir()
    bare = bare_repo(base / "p.git")
    git("push", "-q", str(bare), "main", cwd=src)  # a small push is stored as loose objects
    blob = git("rev-parse", "main:b.txt", cwd=bare).strip()
    (bare / "objects" / blob[:2] / blob[2:]).unlink()
    with pytest.raises(BadGateway) as local:
        service.clone(bare.as_uri(), tmp_path / "c1")
    assert (local.value.code, local.value.extra["objects"]) == ("remote_corrupt", [blob])
    with git_daemon(base) as url, pytest.raises(BadGateway) as served:
        service.clone(url + "p.git", tmp_path / "c2", timeout=10)
    assert served.value.code == "remote_corrupt"
    assert not (tmp_path / "c1").exists() and not (tmp_path / "c2").exists()
