"""Git on a real repository's shape, against the ``git`` command line in the same run.

Takes a clone of github.com/alibaba/MNN (``--repo PATH``; about 3,100 commits and 8,400 files),
clones it again into a temporary folder (``git clone --local``) and times, through
``server.gitflow.service`` (the functions the HTTP routes call), ours against git's, alternating
ours and git's runs so both see the same load; medians of ``--runs`` (≥ 5), the load printed:

* the first status after a restart: the Git layer's in-process state dropped before each run (the
  parsed index, HEAD's flattened tree, kept hashes and listings, the file monitor, the warm-up
  thread's work), with whatever the layer keeps on disk left in place, against ``git status``;
* the first log page after a restart (the kept order dropped the same way) against
  ``git log --topo-order -n 100``, each page checked to equal git's;
* status with 50 modified and 20 untracked files (a running server: the state kept) against
  ``git status``, each right after a save to one of the modified files; the answer checked;
* stage + commit of 50 changed files against ``git add`` + ``git commit`` (each includes the edit;
  each side in its own copy of the repository);
* checkout of an old tag and back to the branch against ``git checkout`` there and back, the work
  tree and index checked with ``git status`` after each.

Run: ``.venv/bin/python bench/git_realrepo.py --repo PATH [--tag 1.1.0] [--runs 7]``
"""

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.gitflow import (  # noqa: E402
    firststatus,
    fsmonitor,
    history,
    indexfile,
    indexwrite,
    service,
    status,
    trees,
)

MODIFIED, UNTRACKED, PAGE = 50, 20, 100
ENV = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
       "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=ENV, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace')}")
    return done.stdout.decode(errors="surrogateescape")


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def load() -> str:
    return "load " + " ".join(f"{v:.1f}" for v in os.getloadavg())


def settle(root: Path) -> None:
    """Wait until the background status a first status started is done."""
    while firststatus.warming(root):
        time.sleep(0.001)


def restart(root: Path) -> None:
    """The Git layer's state as in a fresh server process: nothing kept in memory."""
    settle(root)
    indexfile._views.clear()
    indexwrite._written.clear()
    trees._flat_cache.clear()
    trees._tree_items.clear()
    status._hashes.clear()
    status._listings.clear()
    history._orders.clear()
    fsmonitor.monitor.close()


def alternate(runs: int, ours: Callable[[], object], theirs: Callable[[], object],
              before: Callable[[], object] = lambda: None) -> tuple[float, float]:
    """Medians of ``runs`` timings of each, ours and git's taking turns."""
    mine, bare = [], []
    for _ in range(runs):
        before()
        mine.append(timed(ours))
        before()
        bare.append(timed(theirs))
    return statistics.median(mine), statistics.median(bare)


def report(label: str, medians: tuple[float, float], tool: str) -> None:
    ours, bare = medians
    print(f"  {label:<44} ours {ours:8.1f} ms   {tool} {bare:8.1f} ms   ratio {ours / bare:.2f}x"
          f"   ({load()})", flush=True)


def tracked_sources(root: Path) -> list[str]:
    names = [n for n in git(root, "ls-files", "-z", "source").split("\0") if n.endswith(".cpp")]
    return sorted(names)[:MODIFIED]


def edit(root: Path, paths: list[str], tag: str) -> None:
    for path in paths:
        with open(root / path, "a") as f:
            f.write(f"// {tag}\n")


def bench_cold(root: Path, runs: int) -> None:
    def our_page() -> None:
        page = [c.sha for c in service.log(root, limit=PAGE)]
        assert page == expected_page, "the first log page differs from git's"

    expected_page = git(root, "log", "--topo-order", "-n", str(PAGE), "--format=%H").split()
    service.status(root)  # the repository has been seen before
    report("first status after a restart (clean tree)",
           alternate(runs, lambda: service.status(root), lambda: git(root, "status", "--porcelain"),
                     lambda: restart(root)), "git status")
    report(f"first log page after a restart ({PAGE} commits)",
           alternate(runs, our_page, lambda: git(root, "log", "--topo-order", "-n", str(PAGE), "--format=%H"),
                     lambda: restart(root)), "git log   ")


def bench_changes(root: Path, runs: int, paths: list[str]) -> None:
    edit(root, paths, "changed")
    for i in range(UNTRACKED):
        (root / f"source/new_{i}.cpp").write_text("// new\n")
    restart(root)
    service.status(root)
    settle(root)
    saves = iter(range(1_000_000))

    def save() -> None:
        edit(root, [paths[next(saves) % MODIFIED]], "saved")

    report(f"status, {MODIFIED} modified + {UNTRACKED} untracked",
           alternate(runs, lambda: service.status(root), lambda: git(root, "status", "--porcelain"), save),
           "git status")
    answer = service.status(root)
    assert len(answer.unstaged) == MODIFIED and len(answer.untracked) == UNTRACKED, answer
    for i in range(UNTRACKED):
        (root / f"source/new_{i}.cpp").unlink()


def bench_commit(root: Path, runs: int, paths: list[str]) -> None:
    """Each side commits in its own copy of the repository (a server's repository is committed to
    through the server), so neither finds the other's index and HEAD; the runs still alternate."""
    other = root.parent / "for-git"
    subprocess.run(["git", "clone", "-q", "--local", str(root), str(other)], check=True)
    git(other, "status", "--porcelain")
    turns = iter(range(1_000_000))

    def ours() -> None:
        edit(root, paths, f"ours {next(turns)}")
        service.stage(root, paths)
        service.commit(root, "ours")

    def theirs() -> None:
        edit(other, paths, f"git {next(turns)}")
        git(other, "add", "--", *paths)
        git(other, "commit", "-q", "--no-verify", "-m", "git")

    report(f"stage + commit {MODIFIED} files", alternate(runs, ours, theirs), "git add+commit")
    assert git(root, "status", "--porcelain") == git(other, "status", "--porcelain") == "", "changes left"


def bench_checkout(root: Path, runs: int, branch: str, tag: str) -> None:
    def check() -> None:
        assert git(root, "status", "--porcelain", "--untracked-files=no") == "", "checkout left changes"

    def ours() -> None:
        service.checkout(root, tag)
        service.checkout(root, branch)

    def theirs() -> None:
        git(root, "checkout", "-q", tag)
        git(root, "checkout", "-q", branch)

    differ = len(git(root, "diff-tree", "-r", "--name-only", tag, branch).split())
    report(f"checkout {tag} and back ({differ} paths differ)", alternate(runs, ours, theirs, check),
           "git checkout")
    check()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help="a clone of github.com/alibaba/MNN")
    parser.add_argument("--tag", default="1.1.0", help="the old tag checked out and back")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="git-realrepo-") as tmp:
        root = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", "--local", args.repo, str(root)], check=True)
        git(root, "status", "--porcelain")  # as a user's first git command would, refresh the index
        branch = git(root, "branch", "--show-current").strip()
        files = len(git(root, "ls-files", "-z").split("\0")) - 1
        commits = git(root, "rev-list", "--count", "HEAD").strip()
        gc.collect()  # as `mnnwb serve` does once it is up: what exists now stays out of full collections
        gc.freeze()
        print(f"{files} files, {commits} commits; medians of {args.runs}, ours and git alternating"
              f" ({load()})")
        bench_cold(root, args.runs)
        paths = tracked_sources(root)
        bench_changes(root, args.runs, paths)
        bench_commit(root, args.runs, paths)
        bench_checkout(root, args.runs, branch, args.tag)


if __name__ == "__main__":
    main()
