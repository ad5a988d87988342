"""Stage and unstage on a known index: the rewrite from the last written entries, and index vs
HEAD answered from the last version's answer with only the updated paths compared again."""

import os
from pathlib import Path

import pytest

from server.gitflow import indexfile, indexwrite, service, status
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import as_porcelain, porcelain, write


def _staged(work: Path) -> set[tuple[str, str, str | None]]:
    return {(c.path, c.kind, c.old_path) for c in service.status(work).staged}


def _fresh_staged(work: Path) -> set[tuple[str, str, str | None]]:
    """Index vs HEAD with nothing kept: the index parsed again and compared in full."""
    indexfile._views.clear()
    indexwrite._written.clear()
    return _staged(work)


def test_each_stage_and_unstage_answers_as_a_full_compare_and_git(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(work, "a.txt", "edited\n")
    write(work, "moved.py", "print('b')\n")  # src/b.py's content: a rename once both are staged
    (work / "src/b.py").unlink()
    write(work, "new/c.txt", "c\n")
    write(work, "link-target.txt", "t\n")
    git("add", "link-target.txt", cwd=work)
    git("commit", "-q", "-m", "target", cwd=work)
    (work / "link-target.txt").unlink()
    os.symlink("a.txt", work / "link-target.txt")  # a typechange
    service.status(work)
    full, compared = status._compare_index_to_tree, []
    monkeypatch.setattr(status, "_compare_index_to_tree", lambda *a: compared.append(1) or full(*a))
    steps = [
        ("stage", ["a.txt"]), ("stage", ["src/b.py"]), ("stage", ["moved.py"]),
        ("stage", ["new", "link-target.txt"]), ("unstage", ["src/b.py"]), ("unstage", ["a.txt", "new"]),
        ("stage", ["src/b.py", "a.txt"]), ("unstage", ["moved.py"]), ("stage", ["moved.py", "new"]),
    ]
    for op, paths in steps:
        answer = getattr(service, op)(work, paths)
        ours = {(c.path, c.kind, c.old_path) for c in answer.staged}
        assert compared == [], (op, paths)  # answered from the last version's answer
        assert ours == _fresh_staged(work), (op, paths)
        assert as_porcelain(work) == porcelain(work), (op, paths)
        service.status(work)  # the next step starts from a known index again
        compared.clear()
    assert ("moved.py", "renamed", "src/b.py") in _staged(work)
    assert ("link-target.txt", "typechange", None) in _staged(work)


def test_an_intent_to_add_entry_keeps_the_index_at_version_3_until_staged(work: Path) -> None:
    """``git add -N`` writes an extended (version 3) entry; our rewrite keeps it byte for byte
    and writes version 2 again once no such entry is left."""
    write(work, "later.txt", "later\n")
    write(work, "a.txt", "edited\n")
    git("add", "-N", "later.txt", cwd=work)
    index = work / ".git/index"
    assert index.read_bytes()[4:8] == (3).to_bytes(4, "big")
    service.status(work)
    service.stage(work, ["a.txt"])
    assert index.read_bytes()[4:8] == (3).to_bytes(4, "big")
    empty = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # an intent-to-add entry names the empty blob
    assert git("ls-files", "-s", "later.txt", cwd=work) == f"100644 {empty} 0\tlater.txt\n"
    service.stage(work, ["later.txt"])
    assert index.read_bytes()[4:8] == (2).to_bytes(4, "big")
    assert porcelain(work) == {"M  a.txt", "A  later.txt"}
    assert as_porcelain(work) == porcelain(work)
    git("fsck", "--strict", cwd=work)
