"""A new project's first commit (``server.gitflow.start.start_tracking``) against the ``git``
command line (``git init`` + ``git add -A`` + ``git commit``) in the same run.

Two folders: the ``hello-mnn`` template as a new project gets it, and the largest built-in
market package as installed (``market/<id>/``, its model files included; the built-ins must be
built, ``make setup`` does it). Each run copies the folder afresh (not timed), then times one
side; ours and git's alternate so both see the same load. Each commit is checked to hold the
same tree as git's. Medians of ``--runs``, the load printed.

Run: ``.venv/bin/python bench/new_project_commit.py [--runs 7]``
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.core.config import REPO_ROOT  # noqa: E402
from server.gitflow.start import start_tracking, write_default_ignore  # noqa: E402
from server.projects.templates import render_template  # noqa: E402

AUTHOR = "Bench <bench@example.com>"
ENV = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
       "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
       "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=ENV, capture_output=True, text=True, check=True)
    return done.stdout


def largest_package() -> Path:
    packages = REPO_ROOT / ".cache" / "market" / "packages"
    sizes = {p: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) for p in packages.iterdir()}
    return max(sizes, key=lambda p: sizes[p])


def sources(work: Path) -> dict[str, Path]:
    template = work / "template-src"
    render_template("hello-mnn", template, "bench")
    package = largest_package()
    market = work / "market-src"
    shutil.copytree(package, market / "market" / package.name)
    for folder in (template, market):
        write_default_ignore(folder)
    return {"hello-mnn template": template, f"market package {package.name}": market}


def ours(folder: Path) -> str:
    commit = start_tracking(folder, author=AUTHOR)
    assert commit is not None
    return git(folder, "rev-parse", "HEAD^{tree}").strip()


def theirs(folder: Path) -> str:
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "--no-verify", "-m", "Initial commit")
    return git(folder, "rev-parse", "HEAD^{tree}").strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}, cpus: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, source in sources(work).items():
            size = sum(f.stat().st_size for f in source.rglob("*") if f.is_file())
            files = sum(1 for f in source.rglob("*") if f.is_file())
            times: dict[str, list[float]] = {"ours": [], "git": []}
            for run in range(args.runs):
                trees = {}
                for side, action in (("ours", ours), ("git", theirs)):
                    folder = work / f"{side}-{run}"
                    shutil.copytree(source, folder)
                    start = time.perf_counter()
                    trees[side] = action(folder)
                    times[side].append(time.perf_counter() - start)
                    shutil.rmtree(folder)
                assert trees["ours"] == trees["git"], f"{name}: trees differ"
            med = {side: statistics.median(values) * 1000 for side, values in times.items()}
            print(f"{name} ({files} files, {size / 2**20:.1f} MB): ours {med['ours']:.0f} ms, "
                  f"git {med['git']:.0f} ms (medians of {args.runs}), ratio {med['ours'] / med['git']:.2f}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
