"""Stage + commit of 50 files on a real repository's shape, step by step against git's.

The same repository and changes as ``git_realrepo.py``'s stage + commit row (a clone of
github.com/alibaba/MNN, ``--repo PATH``, cloned again into a temporary folder; each side commits
in its own copy), but each step timed apart: ``service.stage`` (with the status it answers)
against ``git add``, ``service.commit`` against ``git commit``; ours and git's runs alternate,
medians of ``--runs``, the load printed. ``--code PATH`` takes the Git layer from another
checkout of this repository (``git archive <commit> server bench | tar -x -C PATH``), so two versions
can be timed one after the other at about the same load.

Run: ``.venv/bin/python bench/git_commit_steps.py --repo PATH [--code PATH] [--runs 9]``
"""

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help="a clone of github.com/alibaba/MNN")
    parser.add_argument("--code", default=str(HERE.parent), help="the checkout whose server/ is timed")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.code, "bench"))  # its git_realrepo puts its server/ first
    import git_realrepo as real  # noqa: PLC0415 (after the path of the code timed is set)

    from server.gitflow import service  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="git-steps-") as tmp:
        ours, theirs = Path(tmp) / "ours", Path(tmp) / "git"
        for copy in (ours, theirs):
            subprocess.run(["git", "clone", "-q", "--local", args.repo, str(copy)], check=True)
            real.git(copy, "status", "--porcelain")
        gc.collect()
        gc.freeze()
        paths = real.tracked_sources(ours)
        service.status(ours)
        real.settle(ours)
        steps: dict[str, list[float]] = {name: [] for name in ("stage", "commit", "git add", "git commit")}
        for turn in range(args.runs):
            real.edit(ours, paths, f"ours {turn}")
            steps["stage"].append(real.timed(lambda: service.stage(ours, paths)))
            steps["commit"].append(real.timed(lambda: service.commit(ours, "ours")))
            real.edit(theirs, paths, f"git {turn}")
            steps["git add"].append(real.timed(lambda: real.git(theirs, "add", "--", *paths)))
            steps["git commit"].append(
                real.timed(lambda: real.git(theirs, "commit", "-q", "--no-verify", "-m", "git")))
        medians = {name: statistics.median(times) for name, times in steps.items()}
        assert real.git(ours, "status", "--porcelain") == real.git(theirs, "status", "--porcelain") == ""
    print(f"the Git layer of {real.service.__file__}; medians of {args.runs} ({real.load()})")
    for name, median in medians.items():
        print(f"  {name:<12} {median:7.1f} ms")
    ours_ms, git_ms = medians["stage"] + medians["commit"], medians["git add"] + medians["git commit"]
    print(f"  stage + commit {ours_ms:.1f} ms, git add + commit {git_ms:.1f} ms:"
          f" ratio {ours_ms / git_ms:.2f}x")


if __name__ == "__main__":
    main()
