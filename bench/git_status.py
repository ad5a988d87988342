"""Git status and commit speed against the ``git`` CLI, in the same run.

Builds a 10,000-file repository (100 folders of 100 files) in a temporary folder, changes 50
tracked files and adds 20 untracked ones, then times:

* status: ``server.gitflow.service.status`` vs ``git status --porcelain`` (a subprocess, as
  the CLI is used), median of RUNS each, interleaved, each call right after a save to one of
  the changed files (as while editing). Ours is timed three ways:
  "watched" is the steady state of a running server (the parsed index is reused while
  ``.git/index`` is unchanged, and only files inotify reports changed are stat'ed again);
  "full scan" is the same with the monitor off (``MNNWB_GIT_STATUS_WATCH=false``: every tracked
  file is stat'ed, as git does); "cold" drops every in-process cache and the monitor before each
  call, as the first status after the server starts: ``git status`` answers it
  (``server/gitflow/firststatus.py``) while ours runs in the background — timed both to the
  answer and until that background status is done, and, for reference, with ours answering it
  ("cold, in Python"). dulwich's own ``porcelain.status`` is timed too, for reference. After each
  call the bench waits (untimed) for any background status, so none runs during another timing.
* staging, unstaging and discarding one saved file, each with the new status (the index is
  written and parsed again): ``service.stage`` / ``unstage`` / ``discard`` vs ``git add`` /
  ``git reset`` / ``git checkout --``, each + ``git status --porcelain``.
* commit of 50 changed files: ``stage`` + ``commit`` vs ``git add`` + ``git commit``.

Targets (issue 3): status ≤ 1.5× git; commit ≤ 3× git.

Run: ``.venv/bin/python bench/git_status.py``
"""

import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from dulwich import porcelain  # noqa: E402
from serverproc import start_server, stop_server  # noqa: E402

from server.gitflow import firststatus, fsmonitor, indexfile, service, status, trees  # noqa: E402

FOLDERS, FILES, MODIFIED, UNTRACKED, RUNS = 100, 100, 50, 20, 9
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(root: Path, *args: str) -> None:
    done = subprocess.run(["git", *args], cwd=root, env=ENV, capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace')}")


def build(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "user.email", "bench@example.com")
    for d in range(FOLDERS):
        folder = root / f"src/pkg{d:03d}"
        folder.mkdir(parents=True)
        for f in range(FILES):
            (folder / f"mod{f:03d}.py").write_text(f"# module {d}.{f}\nVALUE = {d * f}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "10,000 files")
    time.sleep(1.1)  # let the files settle past the racy-timestamp window, as in real use
    edit(root, "first")
    for i in range(UNTRACKED):
        (root / f"src/pkg{i:03d}/new{i}.py").write_text("NEW = 1\n")


def edit(root: Path, tag: str) -> list[str]:
    paths = [f"src/pkg{i:03d}/mod001.py" for i in range(MODIFIED)]
    for path in paths:
        with open(root / path, "a") as f:
            f.write(f"EDIT = {tag!r}\n")
    return paths


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def settle(root: Path) -> None:
    """Wait until the background status a first status started is done."""
    while firststatus.warming(root):
        time.sleep(0.001)


def drop_caches(root: Path) -> None:
    settle(root)
    indexfile._views.clear()
    trees._flat_cache.clear()
    status._hashes.clear()
    status._listings.clear()
    fsmonitor.monitor.close()


def cold_until_warm(root: Path) -> None:
    service.status(root)
    settle(root)


def cold_python_status(root: Path) -> None:
    """The first status answered by our own code, as before ``firststatus``."""
    limit, firststatus.MIN_INDEX_BYTES = firststatus.MIN_INDEX_BYTES, 1 << 62
    try:
        service.status(root)
    finally:
        firststatus.MIN_INDEX_BYTES = limit


def full_scan_status(root: Path) -> None:
    fsmonitor.monitor.enabled = False
    try:
        service.status(root)
    finally:
        fsmonitor.monitor.enabled = True


def save_one(root: Path, n: int) -> str:
    path = f"src/pkg{n % MODIFIED:03d}/mod001.py"
    with open(root / path, "a") as f:
        f.write(f"SAVED = {n}\n")
    return path


def bench_status(root: Path) -> dict[str, float]:
    expected = service.status(root)
    assert len(expected.unstaged) == MODIFIED and len(expected.untracked) == UNTRACKED
    actions: dict[str, Callable[[], object]] = {
        "git": lambda: git(root, "status", "--porcelain"),
        "watched": lambda: service.status(root),
        "full": lambda: full_scan_status(root),
        "cold": lambda: service.status(root),
        "cold_warm": lambda: cold_until_warm(root),
        "cold_python": lambda: cold_python_status(root),
    }
    runs: dict[str, list[float]] = {name: [] for name in actions}
    saves = 0
    for _ in range(RUNS):
        for name, action in actions.items():
            saves += 1
            if name.startswith("cold"):  # the caches are dropped before the timing starts
                drop_caches(root)
            save_one(root, saves)
            runs[name].append(timed(action))
            settle(root)
    assert len(service.status(root).unstaged) == MODIFIED
    result = {name: statistics.median(values) for name, values in runs.items()}
    result["dulwich"] = statistics.median(timed(lambda: porcelain.status(str(root))) for _ in range(3))
    return result


def bench_writes(root: Path) -> dict[str, dict[str, float]]:
    """Stage, unstage and discard one saved file, each followed by the new status (ours returns
    it; git's side runs ``git status``). Each side in its own loop: every git command may
    rewrite the index, which would make each of our calls parse it again."""

    def git_then_status(*args: str) -> Callable[[str], None]:
        def run(path: str) -> None:
            git(root, *args, path)
            git(root, "status", "--porcelain")

        return run

    sides: dict[str, dict[str, Callable[[str], object]]] = {
        "ours": {
            "stage": lambda path: service.stage(root, [path]),
            "unstage": lambda path: service.unstage(root, [path]),
            "discard": lambda path: service.discard(root, [path]),
        },
        "git": {
            "stage": git_then_status("add"),
            "unstage": git_then_status("reset", "-q", "--"),
            "discard": git_then_status("checkout", "--"),
        },
    }
    result: dict[str, dict[str, float]] = {}
    for side, steps in sides.items():
        runs: dict[str, list[float]] = {step: [] for step in steps}
        for n in range(RUNS):
            path = save_one(root, n)
            for step, action in steps.items():
                runs[step].append(timed(partial(action, path)))
        result[side] = {step: statistics.median(values) for step, values in runs.items()}
    return result


def copies(root: Path, count: int) -> list[Path]:
    """``count`` clones of ``root`` in the same state (50 modified, 20 untracked files), settled."""
    made = []
    for n in range(count):
        copy = root.with_name(f"copy{n}")
        git(root.parent, "clone", "-q", "--local", str(root), str(copy))
        edit(copy, "copy")
        for i in range(UNTRACKED):
            (copy / f"src/pkg{i:03d}/new{i}.py").write_text("NEW = 1\n")
        made.append(copy)
    time.sleep(1.1)  # past the racy-timestamp window, as in build()
    for copy in made:  # a fresh clone's index is racily clean: git's first status hashes every file
        git(copy, "status", "--porcelain")
    return made


def get_ok(client: httpx.Client, url: str) -> None:
    client.get(url).raise_for_status()


def first_statuses(client: httpx.Client, folders: list[Path]) -> dict[str, list[float]]:
    """The first ``GET .../git/status`` of each folder's project, after ``git status`` there."""
    runs: dict[str, list[float]] = {"git": [], "server": []}
    ids = [client.post("/api/projects", json={"name": f.name, "path": str(f)}).json()["id"] for f in folders]
    # FastAPI builds a router's routes on its first request (~0.3 s for the git routes): a request
    # that does not touch status pays for that first.
    client.get(f"/api/projects/{ids[0]}/git/branches").raise_for_status()
    for folder, pid in zip(folders, ids, strict=True):
        runs["git"].append(timed(partial(git, folder, "status", "--porcelain")))
        runs["server"].append(timed(partial(get_ok, client, f"/api/projects/{pid}/git/status")))
        # git answered; the server's own status runs in the background (~1 s), not during the next
        time.sleep(3)
    return runs


def bench_server_status(root: Path, data_dir: Path) -> dict[str, float]:
    """``GET .../git/status`` from a running server (HTTP and JSON included) vs ``git status``:
    the first status of 5 copies of the repository, then the steady state of one."""
    folders = copies(root, 5)
    proc, base, token = start_server(data_dir)
    try:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as client:
            first = first_statuses(client, folders)
            project = client.post("/api/projects", json={"name": "bench", "path": str(root)}).json()
            url = f"/api/projects/{project['id']}/git/status"
            client.get(url).raise_for_status()
            time.sleep(3)
            runs: dict[str, list[float]] = {"git": [], "server": []}
            for n in range(RUNS * 2):
                save_one(root, n)
                runs["git"].append(timed(lambda: git(root, "status", "--porcelain")))
                save_one(root, n)
                runs["server"].append(timed(lambda: client.get(url).raise_for_status()))
    finally:
        stop_server(proc)
    result = {name: statistics.median(values) for name, values in runs.items()}
    first_medians = {name: statistics.median(values) for name, values in first.items()}
    return {**result, "first": first_medians["server"], "first_git": first_medians["git"]}


def ours_commit(root: Path, tag: str) -> None:
    paths = edit(root, tag)
    service.stage(root, paths)
    service.commit(root, tag)


def git_commit(root: Path, tag: str) -> None:
    paths = edit(root, tag)
    git(root, "add", *paths)
    git(root, "commit", "-q", "--no-verify", "-m", tag)


def bench_commit(root: Path) -> dict[str, float]:
    """Each timing includes editing the 50 files (the same small cost on both sides)."""
    ours = [timed(partial(ours_commit, root, f"ours {i}")) for i in range(RUNS)]
    theirs = [timed(partial(git_commit, root, f"git {i}")) for i in range(RUNS)]
    return {"ours": statistics.median(ours), "git": statistics.median(theirs)}


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="git-bench-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        build(root)
        # As `mnnwb serve` does once it is up: what exists now stays out of full collections.
        gc.collect()
        gc.freeze()
        st = bench_status(root)
        writes = bench_writes(root)
        co = bench_commit(root)
        served = bench_server_status(root, Path(tmp) / "data")
    print(f"status, {FOLDERS * FILES} files, {MODIFIED} modified, {UNTRACKED} untracked (median of {RUNS}):")
    print(f"  git status --porcelain  {st['git']:7.1f} ms")
    labels = {"watched": "ours, watched", "full": "ours, full scan", "cold": "ours, cold caches",
              "cold_warm": "cold, until warmed up", "cold_python": "cold, in Python"}
    for name, label in labels.items():
        print(f"  {label:<22}  {st[name]:7.1f} ms   ratio {st[name] / st['git']:.2f}x")
    print(f"  dulwich porcelain       {st['dulwich']:7.1f} ms   ratio {st['dulwich'] / st['git']:.2f}x")
    print(f"status through a running server (GET .../git/status, median of {RUNS * 2}):")
    print(f"  git status --porcelain  {served['git']:7.1f} ms")
    ratio = served["server"] / served["git"]
    print(f"  GET git/status          {served['server']:7.1f} ms   ratio {ratio:.2f}x")
    first = served["first"] / served["first_git"]
    print(f"  first GET of 5 fresh copies {served['first']:7.1f} ms, git status of each just before "
          f"{served['first_git']:7.1f} ms   ratio {first:.2f}x (medians)")
    print("one saved file, then the new status (median of 9): ours vs git + git status")
    for step, ours in writes["ours"].items():
        theirs = writes["git"][step]
        print(f"  {step:<8}  ours {ours:7.1f} ms   git {theirs:7.1f} ms   ratio {ours / theirs:.2f}x")
    print(f"commit of {MODIFIED} changed files (stage + commit, median of {RUNS}):")
    print(f"  git add + git commit    {co['git']:7.1f} ms")
    print(f"  ours                    {co['ours']:7.1f} ms   ratio {co['ours'] / co['git']:.2f}x")


if __name__ == "__main__":
    main()
