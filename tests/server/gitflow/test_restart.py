"""The first status and log of a fresh server process are git's answers, whatever git did to the
repository while no server ran: each call below runs in a new Python process, as after a restart,
and may use what an earlier process kept on disk (the log's order, ``orderfile.py``)."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import porcelain, write

ROOT = Path(__file__).resolve().parents[3]

# Runs in the new process: the answer, and how many times the whole history was walked.
_CHILD = """
import json, sys
from server.gitflow import firststatus, history, service
from tests.server.gitflow.conftest import as_porcelain
walks = []
walk = history._full_order
history._full_order = lambda *args: walks.append(1) or walk(*args)
firststatus.MIN_INDEX_BYTES = int(sys.argv[3])
root, what = sys.argv[1], sys.argv[2]
if what == "log":
    answer = [c.sha for c in service.log(root, limit=int(sys.argv[4]))]
else:
    answer = sorted(as_porcelain(__import__("pathlib").Path(root)))
print(json.dumps({"answer": answer, "walks": len(walks)}))
"""


def fresh(root: Path, what: str, limit: int = 100, min_index_bytes: int = 1 << 62) -> tuple[list[str], int]:
    """``what`` (``log`` or ``status``) answered by a new process, and its whole-history walks."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), what, str(min_index_bytes), str(limit)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    return result["answer"], result["walks"]


def git_log(root: Path, limit: int = 100) -> list[str]:
    return git("log", "--topo-order", "-n", str(limit), "--format=%H", cwd=root).split()


def commit(root: Path, name: str) -> None:
    write(root, name, name)
    git("add", name, cwd=root)
    git("commit", "-q", "-m", name, cwd=root)


@pytest.fixture
def history_of_five(work: Path) -> Path:
    for i in range(4):
        commit(work, f"c{i}.txt")
    return work


def test_the_log_order_is_kept_for_the_next_process(history_of_five: Path) -> None:
    work = history_of_five
    assert fresh(work, "log") == (git_log(work), 1)
    assert (work / ".git" / "mnnwb" / "log-order").is_file()
    assert fresh(work, "log") == (git_log(work), 0), "the kept order answers"
    assert fresh(work, "log", limit=2) == (git_log(work, 2), 0)


def test_commits_git_made_while_down_come_first(history_of_five: Path) -> None:
    work = history_of_five
    fresh(work, "log")
    commit(work, "while-down.txt")
    git("checkout", "-q", "-b", "side", cwd=work)
    commit(work, "side.txt")
    git("checkout", "-q", "main", cwd=work)
    commit(work, "main.txt")
    git("merge", "-q", "--no-ff", "-m", "merge side", "side", cwd=work)
    assert fresh(work, "log") == (git_log(work), 0), "only the new commits are ordered"


def test_history_git_rewrote_while_down_is_listed_anew(history_of_five: Path) -> None:
    work = history_of_five
    fresh(work, "log")
    git("reset", "-q", "--hard", "HEAD~2", cwd=work)
    commit(work, "other.txt")
    git("commit", "-q", "--amend", "-m", "amended", cwd=work)
    log, _ = fresh(work, "log")
    assert log == git_log(work) and len(log) == 4
    git("checkout", "-q", "--orphan", "fresh", cwd=work)
    commit(work, "root.txt")
    assert fresh(work, "log") == (git_log(work), 1), "an unrelated history is walked"


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty", "other-start"])
def test_a_damaged_order_file_is_not_believed(history_of_five: Path, damage: str) -> None:
    work = history_of_five
    fresh(work, "log")
    kept = work / ".git" / "mnnwb" / "log-order"
    data = kept.read_bytes()
    if damage == "truncated":
        kept.write_bytes(data[:-7])
    elif damage == "flipped":  # the last commit id's last byte: the checksum no longer matches
        kept.write_bytes(data[:-21] + bytes([data[-21] ^ 1]) + data[-20:])
    elif damage == "empty":
        kept.write_bytes(b"")
    else:  # a well-formed file, but its start is not the order's first commit
        body = data[:18] + bytes(20) + data[38:-20]  # the start's id, after the 18-byte magic line
        kept.write_bytes(body + hashlib.sha1(body, usedforsecurity=False).digest())
    assert fresh(work, "log") == (git_log(work), 1)


@pytest.mark.parametrize("answered_by", ["git", "ours"])
def test_status_after_git_changed_things_while_down(work: Path, answered_by: str) -> None:
    """Edits, staging and commits by git while no server ran: the first status is git's."""
    limit = 0 if answered_by == "git" else 1 << 62  # which code answers a first status
    for i in range(30):
        write(work, f"src/m{i}.py", f"value = {i}\n")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "modules", cwd=work)
    assert fresh(work, "status", min_index_bytes=limit)[0] == []
    write(work, "src/m1.py", "value = 'edited'\n")
    write(work, "src/m2.py", "value = 'staged'\n")
    git("add", "src/m2.py", cwd=work)
    write(work, "src/m3.py", "value = 'committed'\n")
    git("commit", "-q", "-m", "m3", "src/m3.py", cwd=work)
    (work / "src/m4.py").unlink()
    write(work, "new.txt", "untracked\n")
    expected = porcelain(work)
    assert expected == {" M src/m1.py", "M  src/m2.py", " D src/m4.py", "?? new.txt"}
    assert set(fresh(work, "status", min_index_bytes=limit)[0]) == expected
    git("commit", "-q", "-am", "everything", cwd=work)
    assert set(fresh(work, "status", min_index_bytes=limit)[0]) == porcelain(work) == {"?? new.txt"}
