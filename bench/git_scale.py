"""Clone, checkout of a distant commit, and blame against git, in the same run, on a generated
repository shaped like a real engine's: FILES files in 100 folders, COMMITS commits of 3 files
each, a tag every COMMITS // TAGS commits (annotated and lightweight alternately), a submodule.

* clone: ``git clone -q file://`` against ``service.clone`` of the same URL (every branch, tag
  and the gitlink kept; the clone is checked with ``git status`` and ``git show-ref``);
* checkout: a branch at the first tag and back to ``main`` (thousands of paths differ), against
  ``git checkout`` of the same branches in a second clone;
* blame: a file every commit touched, cold (fresh process cache) and again, against ``git blame``.

Each figure is the median of RUNS; ours and git's runs alternate, so both see the same load.
Run: ``.venv/bin/python bench/git_scale.py [FILES COMMITS]``
"""

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.gitflow import blame as blame_ops  # noqa: E402
from server.gitflow import service  # noqa: E402

FILES, COMMITS, TAGS, RUNS = 10_000, 3_000, 100, 3
IDENTITY = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
            "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com"}
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", **IDENTITY}


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=ENV, capture_output=True, text=True, check=True).stdout


def path_of(n: int) -> str:
    return f"src/dir{n % 100:02d}/file{n}.cc"


def build(root: Path, files: int, commits: int) -> None:
    """A bare repository made with ``git fast-import``: fast even at full size."""
    git("init", "-q", "--bare", "-b", "main", str(root))
    rng = random.Random(7)
    out: list[str] = []

    def blob(text: str) -> None:
        out.extend([f"data {len(text.encode())}", text])

    out += ["commit refs/heads/main", "committer Bench <b@example.com> 1600000000 +0000", "data 7", "initial"]
    for n in range(files):
        out.append(f"M 100644 inline {path_of(n)}")
        blob(f"// file {n}\n" + "int x = 0;\n" * 20)
    out.append("M 160000 " + "1" * 40 + " third_party/sub")
    for c in range(1, commits):
        out += ["commit refs/heads/main", f"committer Bench <b@example.com> {1600000000 + c} +0000"]
        blob(f"change {c}")
        for n in rng.sample(range(files), 3) + [0]:
            out.append(f"M 100644 inline {path_of(n)}")
            blob(f"// file {n} at {c}\n" + "int x = 0;\n" * 20 + f"int y{c} = {c};\n")
        if c % (commits // TAGS) == 0:
            out += [f"reset refs/tags/v{c}", "from refs/heads/main"] if c % 2 else [
                f"tag v{c}", "from refs/heads/main", "tagger Bench <b@example.com> 1600000000 +0000"]
            if not c % 2:
                blob(f"release {c}")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, env=ENV, input="\n".join(out) + "\n",
                   text=True, check=True)
    git("gc", "-q", cwd=root)


def median(action: Callable[[], object], prepare: Callable[[], object] = lambda: None) -> float:
    times = []
    for _ in range(RUNS):
        prepare()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def paired(ours: Callable[[], object], theirs: Callable[[], object],
           prepare: tuple[Callable[[], object], Callable[[], object]] = (lambda: None, lambda: None),
           ) -> tuple[float, float]:
    """Medians of ``ours`` and ``theirs`` run alternately, so both see the same machine load;
    ``prepare`` holds what runs before each of ours and each of theirs, untimed."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(RUNS):
        for action, ready, out in ((ours, prepare[0], times[0]), (theirs, prepare[1], times[1])):
            ready()
            start = time.perf_counter()
            action()
            out.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


def row(name: str, ours: float, theirs: float) -> None:
    print(f"| {name} | {ours * 1000:,.0f} ms | {theirs * 1000:,.0f} ms | {ours / theirs:.2f}× |")


def main() -> None:
    files, commits = (int(sys.argv[1]), int(sys.argv[2])) if len(sys.argv) == 3 else (FILES, COMMITS)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        remote = work / "remote.git"
        start = time.perf_counter()
        build(remote, files, commits)
        print(f"built {files} files, {commits} commits in {time.perf_counter() - start:.0f} s")
        url = remote.as_uri()
        ours, theirs = work / "ours", work / "theirs"

        print("| operation | here | git | ratio |\n|---|---|---|---|")
        clone_ours, clone_git = paired(lambda: service.clone(url, ours, timeout=600),
                                       lambda: git("clone", "-q", url, str(theirs)),
                                       (lambda: shutil.rmtree(ours, True),
                                        lambda: shutil.rmtree(theirs, True)))
        row("clone (file://)", clone_ours, clone_git)
        assert git("status", "--porcelain", cwd=ours) == ""
        assert git("show-ref", cwd=ours) == git("show-ref", cwd=theirs)

        old = sorted(git("tag", cwd=ours).split(), key=lambda t: int(t[1:]))[0]
        for repo in (ours, theirs):
            git("branch", "old", old, cwd=repo)
        differ = len(git("diff", "--name-only", "old", "main", cwd=ours).split())
        away, away_git = paired(lambda: (service.checkout(ours, "old"), service.checkout(ours, "main")),
                                lambda: (git("checkout", "-q", "old", cwd=theirs),
                                         git("checkout", "-q", "main", cwd=theirs)))
        row(f"checkout to {old} and back ({differ} paths differ)", away, away_git)
        assert git("status", "--porcelain", cwd=ours) == ""

        target = path_of(0)
        cold = median(lambda: service.blame(ours, target), blame_ops._answers.clear)
        warm = median(lambda: service.blame(ours, target))
        blame_git = median(lambda: git("blame", "--", target, cwd=theirs))
        row(f"blame, first time ({commits} commits touch it)", cold, blame_git)
        row("blame, again", warm, blame_git)


if __name__ == "__main__":
    main()
