"""Blame against ``git blame --porcelain`` on histories with edits, moves and a merge."""

from pathlib import Path

from server.gitflow import service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import write


def git_blame(root: Path, path: str, rev: str = "HEAD") -> list[str]:
    """The commit of each line, from ``git blame --porcelain``."""
    lines = git("blame", "--porcelain", rev, "--", path, cwd=root).splitlines()
    owners = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 3 and len(parts[0]) == 40 and parts[1].isdigit() and parts[2].isdigit():
            owners.append(parts[0])
    return owners


def our_blame(root: Path, path: str, rev: str = "HEAD") -> list[str]:
    answer = service.blame(root, path, rev)
    return [r.commit for r in answer.ranges for _ in range(r.count)]


def test_blame_matches_git_through_edits_and_a_merge(work: Path) -> None:
    write(work, "f.txt", "".join(f"line {n}\n" for n in range(1, 21)))
    git("add", "f.txt", cwd=work)
    git("commit", "-q", "-m", "twenty lines", cwd=work)
    git("checkout", "-q", "-b", "side", cwd=work)
    text = (work / "f.txt").read_text().replace("line 3\n", "line three\n")
    write(work, "f.txt", text + "from side\n")
    git("commit", "-q", "-am", "side edits", cwd=work)
    git("checkout", "-q", "main", cwd=work)
    text = (work / "f.txt").read_text().replace("line 15\n", "line fifteen\n")
    write(work, "f.txt", "header\n" + text)
    git("commit", "-q", "-am", "main edits", cwd=work)
    git("merge", "-q", "--no-edit", "side", cwd=work)
    write(work, "f.txt", (work / "f.txt").read_text().replace("line 10\n", ""))
    git("commit", "-q", "-am", "drop ten", cwd=work)
    assert our_blame(work, "f.txt") == git_blame(work, "f.txt")
    merge = git("rev-parse", "HEAD~1", cwd=work).strip()
    assert our_blame(work, "f.txt", merge) == git_blame(work, "f.txt", merge)
    answer = service.blame(work, "f.txt")
    assert set(answer.commits) == {r.commit for r in answer.ranges}
    assert answer.commits[answer.ranges[0].commit].summary == "main edits"


def test_a_large_file_is_answered_again_from_memory(work: Path) -> None:
    write(work, "big.py", "".join(f"x{n} = {n}\n" for n in range(5000)))
    git("add", "big.py", cwd=work)
    git("commit", "-q", "-m", "big", cwd=work)
    for k in range(5):
        text = (work / "big.py").read_text().replace(f"x{k * 900} = ", f"x{k * 900} = -")
        write(work, "big.py", text)
        git("commit", "-q", "-am", f"edit {k}", cwd=work)
    first = service.blame(work, "big.py")
    assert first.text == (work / "big.py").read_text()
    assert our_blame(work, "big.py") == git_blame(work, "big.py")
    assert service.blame(work, "big.py") is first
