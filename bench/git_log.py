"""History pages against ``git log --topo-order``, in the same run.

Builds a 10,000-commit repository (``git fast-import``, one small file changed per commit) in a
temporary folder, then times ``server.gitflow.service.log`` pages of 100 — the first page
(which orders the whole history), later pages at several offsets, and the first two pages after
one new commit made through the service — against ``git log --topo-order -n 100 --skip=N``.
Every page is checked to list exactly git's commits in git's order. The first page is timed with
no order kept (as after a start-up), alternating with git's.

Run: ``.venv/bin/python bench/git_log.py``
"""

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.gitflow import history, service  # noqa: E402

COMMITS, PAGE, RUNS = 10_000, 100, 5
SKIPS = (0, 100, 5_000, 9_900)


def build(root: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
        subprocess.run(["git", "config", key, value], cwd=root, check=True)
    script = []
    for n in range(COMMITS):
        content = f"step {n}\n"
        message = f"commit {n}\n"
        script += [
            "commit refs/heads/main",
            f"committer Bench <bench@example.com> {1_700_000_000 + n} +0000",
            f"data {len(message)}", message.rstrip("\n"),
            f"M 100644 inline file{n % 100}.txt", f"data {len(content)}", content.rstrip("\n"),
            "",
        ]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input="\n".join(script) + "\n",
                   text=True, check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)


def git_page(root: Path, skip: int) -> list[str]:
    done = subprocess.run(["git", "log", "--topo-order", "-n", str(PAGE), f"--skip={skip}", "--format=%H"],
                          cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.split()


def our_page(root: Path, skip: int) -> list[str]:
    return [c.sha for c in service.log(root, limit=PAGE, skip=skip)]


def timed(action: Callable[[], list[str]]) -> tuple[float, list[str]]:
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000, result


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="git-log-bench-") as tmp:
        root = Path(tmp)
        build(root)
        cold, cold_git = [], []
        for _ in range(RUNS):  # each time as after a start-up: no order kept
            history._orders.clear()
            t, page = timed(lambda: our_page(root, 0))
            assert page == git_page(root, 0)
            cold.append(t)
            cold_git.append(timed(lambda: git_page(root, 0))[0])
        first, first_git = statistics.median(cold), statistics.median(cold_git)
        print(f"log of {COMMITS} commits, pages of {PAGE} (median of {RUNS}):")
        print(f"  first page, whole history ordered   {first:8.1f} ms   git {first_git:7.1f} ms"
              f"   ratio {first / first_git:.2f}x")
        for skip in SKIPS:
            ours, theirs = [], []
            for _ in range(RUNS):
                t, page = timed(lambda: our_page(root, skip))  # noqa: B023
                ours.append(t)
                t, expected = timed(lambda: git_page(root, skip))  # noqa: B023
                theirs.append(t)
                assert page == expected, skip
            o, g = statistics.median(ours), statistics.median(theirs)
            print(f"  page at {skip:>5}: ours {o:7.1f} ms   git {g:7.1f} ms   ratio {o / g:.2f}x")
        (root / "new.txt").write_text("new\n")
        service.stage(root, ["new.txt"])
        service.commit(root, "one more")
        for skip in (0, PAGE):
            t, page = timed(lambda: our_page(root, skip))  # noqa: B023
            assert page == git_page(root, skip)
            print(f"  after one new commit, page at {skip:>3}: {t:7.1f} ms")


if __name__ == "__main__":
    main()
