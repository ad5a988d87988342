"""The log lists children before their parents (``git log --topo-order``), even when every commit
has the same timestamp, and its pages fit together without gaps or repeats."""

from pathlib import Path

from dulwich.objects import Commit, Tree
from dulwich.repo import Repo

from server.gitflow import service
from tests.fakes.git_remotes import git

SECOND = 1_700_000_000


def _commit(repo: Repo, message: str, parents: list[bytes]) -> bytes:
    tree = Tree()
    repo.object_store.add_object(tree)
    c = Commit()
    c.tree, c.parents, c.message = tree.id, parents, message.encode()
    c.author = c.committer = b"Ada <ada@example.com>"
    c.author_time = c.commit_time = SECOND
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
