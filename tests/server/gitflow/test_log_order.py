"""The log lists commits exactly as ``git log --topo-order`` does, even when every commit has
the same timestamp, its pages fit together without gaps or repeats, and it stays right as new
commits arrive on top of a history already listed."""

from pathlib import Path

import pytest
from dulwich.objects import Commit, ObjectID, Tree
from dulwich.repo import ParentsProvider, Repo

from server.core.cache import BoundedCache
from server.gitflow import history, service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import write

SECOND = 1_700_000_000


def _commit(repo: Repo, message: str, parents: list[bytes], when: int = SECOND) -> bytes:
    tree = Tree()
    repo.object_store.add_object(tree)
    c = Commit()
    c.tree, c.parents, c.message = tree.id, parents, message.encode()
    c.author = c.committer = b"Ada <ada@example.com>"
    c.author_time = c.commit_time = when
    c.author_timezone = c.commit_timezone = 0
    repo.object_store.add_object(c)
    return c.id


def _history(root: Path, salt: int) -> bytes:
    """base, then two branches of six commits each, a merge, and three commits on top."""
    repo = Repo.init(str(root), mkdir=True)
    with repo:
        base = _commit(repo, f"base {salt}", [])
        tips = []
        for side in ("main", "side"):
            tip = base
            for i in range(6):
                tip = _commit(repo, f"{side} {i} {salt}", [tip])
            tips.append(tip)
        tip = _commit(repo, f"merge {salt}", tips)
        for i in range(3):
            tip = _commit(repo, f"top {i} {salt}", [tip])
        repo.refs[b"refs/heads/main"] = tip
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
    return tip


def test_children_come_before_parents_within_one_second(tmp_path):
    for salt in range(8):  # several histories: same-second ties break differently in each
        root = tmp_path / str(salt)
        _history(root, salt)
        log = service.log(root)
        position = {c.sha: i for i, c in enumerate(log)}
        assert set(position) == set(git("rev-list", "HEAD", cwd=root).split()) and len(log) == 17
        for c in log:
            assert all(position[p] > position[c.sha] for p in c.parents), (salt, c.summary)
        assert log[0].summary == f"top 2 {salt}" and log[-1].summary == f"base {salt}"


def test_pages_join_up_to_the_whole_log(tmp_path):
    _history(tmp_path / "r", 0)
    whole = [c.sha for c in service.log(tmp_path / "r")]
    pages = [c.sha for skip in range(0, 17, 3) for c in service.log(tmp_path / "r", limit=3, skip=skip)]
    assert pages == whole


def _paged(root: Path, limit: int = 2) -> list[str]:
    """The whole log, read a page at a time as the history panel does."""
    ids: list[str] = []
    while page := service.log(root, limit=limit, skip=len(ids)):
        ids += [c.sha for c in page]
    return ids


def _git_order(root: Path) -> list[str]:
    return git("log", "--topo-order", "--format=%H", cwd=root).split()


def test_a_merge_shows_one_line_after_the_other_as_git_does(tmp_path):
    """The two lines' dates alternate: ordering by date would interleave them."""
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    with repo:
        tips = [_commit(repo, "base", [])] * 2
        for i in range(8):
            tips[i % 2] = _commit(repo, f"line {i % 2} step {i}", [tips[i % 2]], when=SECOND + i + 1)
        repo.refs[b"refs/heads/main"] = _commit(repo, "merge", tips, when=SECOND + 10)
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
    assert _paged(tmp_path / "r", limit=3) == _git_order(tmp_path / "r")


@pytest.fixture
def full_walks(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Start commits whose whole history was walked; nothing is remembered from other tests."""
    monkeypatch.setattr(history, "_orders", BoundedCache(history._CACHE_SIZE))
    walked: list[bytes] = []
    walk = history._full_order

    def counted(repo: Repo, provider: ParentsProvider, start: ObjectID) -> history.Order:
        walked.append(start)
        return walk(repo, provider, start)

    monkeypatch.setattr(history, "_full_order", counted)
    return walked


def _commit_file(root: Path, name: str, by_git: bool = False) -> None:
    write(root, name, name)
    if by_git:
        git("add", name, cwd=root)
        git("commit", "-q", "-m", name, cwd=root)
    else:
        service.stage(root, [name])
        service.commit(root, name)


def test_new_commits_on_top_of_a_listed_history_come_first(work: Path, full_walks: list[bytes]) -> None:
    _commit_file(work, "one.txt")
    listed = _paged(work)
    assert listed == _git_order(work) and len(listed) == 2
    _commit_file(work, "two.txt")
    _commit_file(work, "three.txt", by_git=True)
    now = _paged(work)
    assert now == _git_order(work) and now[2:] == listed
    # A side line that starts at the listed HEAD, merged back: still new commits only.
    git("checkout", "-q", "-b", "side", cwd=work)
    _commit_file(work, "side.txt", by_git=True)
    git("checkout", "-q", "main", cwd=work)
    _commit_file(work, "main.txt")
    git("merge", "-q", "--no-ff", "-m", "merge side", "side", cwd=work)
    merged = _paged(work)
    assert merged == _git_order(work) and merged[3:] == now
    assert len(full_walks) == 1


def test_a_merge_bringing_in_older_history_orders_it_all_again(work: Path, full_walks: list[bytes]) -> None:
    _commit_file(work, "one.txt")
    _commit_file(work, "two.txt")
    listed = _paged(work)
    # A line from the first commit merges main in: git shows main's commits before that line's,
    # so the new commits do not simply go in front of what was listed.
    git("checkout", "-q", "-b", "side", "HEAD~2", cwd=work)
    _commit_file(work, "side.txt", by_git=True)
    git("merge", "-q", "--no-ff", "-m", "merge main", "main", cwd=work)
    merged = _paged(work)
    assert merged == _git_order(work) and merged[1:3] == listed[:2]
    assert len(full_walks) == 2
