"""The history (HEAD's, and that of every branch, remote branch and tag) is exactly
``git log --topo-order [--branches --remotes --tags] HEAD``'s, ties in commit time included."""

import random
from pathlib import Path

import pytest
from dulwich.repo import Repo

from server.core.cache import BoundedCache
from server.gitflow import history, readtree, service
from tests.fakes.git_remotes import git
from tests.server.gitflow.test_log_order import SECOND, _commit


def _branchy(root: Path, seed: int) -> None:
    """Random branches off random commits, some merged, tags on side commits, a remote branch,
    and HEAD detached on one of them; a few commits share a timestamp."""
    rng = random.Random(seed)
    repo = Repo.init(str(root), mkdir=True)
    with repo:
        commits = [_commit(repo, "root", [], SECOND)]
        for n in range(60):
            parents = [rng.choice(commits[-8:])]
            if rng.random() < 0.2:
                parents.append(rng.choice(commits))
            commits.append(_commit(repo, f"c{n}", list(dict.fromkeys(parents)), SECOND + rng.randrange(40)))
        picks = rng.sample(commits, 7)
        for name, sha in zip(("main", "feature", "fix"), picks, strict=False):
            repo.refs[f"refs/heads/{name}".encode()] = sha
        repo.refs[b"refs/remotes/origin/topic"] = picks[3]
        repo.refs[b"refs/tags/v1"] = picks[4]
        repo.refs[b"refs/tags/v2"] = picks[5]
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
        (root / ".git" / "HEAD").write_text(picks[6].decode() + "\n")


@pytest.fixture(params=["git rev-list", "our walk"])
def walker(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways the order is made: git's walk, and ours (shallow clones, grafts)."""
    monkeypatch.setattr(history, "_orders", BoundedCache(history._CACHE_SIZE))
    if request.param == "our walk":
        monkeypatch.setattr(readtree, "rev_list", lambda repo, starts: None)


def test_every_branch_in_gits_order(tmp_path, walker):
    wider = 0
    for seed in range(5):
        root = tmp_path / f"r{seed}"
        _branchy(root, seed)
        theirs = git("log", "--topo-order", "--format=%H", "--branches", "--remotes", "--tags", "HEAD",
                     cwd=root).split()
        ours = [c.sha for c in service.log(root, limit=1000, every=True)]
        assert ours == theirs, seed
        paged = [c.sha for skip in range(0, len(theirs), 7) for c in service.log(root, 7, skip, every=True)]
        assert paged == theirs
        head_only = git("log", "--topo-order", "--format=%H", cwd=root).split()
        assert [c.sha for c in service.log(root, limit=1000)] == head_only
        wider += len(theirs) > len(head_only)
    assert wider  # the other branches did add commits to the history
