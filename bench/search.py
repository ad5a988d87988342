"""Search across an 8,000-file repository: the server's search route against ``git grep``.

A real ``mnnwb serve`` process opens a generated Git repository of 8,000 Python files (200 of
them gitignored). Each query runs through ``GET /api/projects/{pid}/search`` (HTTP, the NDJSON
stream read to its end) and as a plain ``git grep -n`` in the same folder, interleaved, several
times after one search that is not counted (the server's first request to the route sets it
up); the medians are compared (target: the route ≤ 1.5× git grep). The CPU both use (the
server process with the ``git`` it starts, against the plain ``git grep``) is summed over the
runs too: unlike wall time it hardly moves with the machine's load.

Run: ``.venv/bin/python bench/search.py``
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import start_server, stop_server  # noqa: E402

FILES = 8000
RUNS = 7
QUERIES = [
    ("plain, case-insensitive", {"q": "needle"}, ["-i", "-F", "-e", "needle"]),
    ("regex", {"q": r"def \w+_needle\(", "regex": "true", "case": "true"}, ["-P", "-e", r"def \w+_needle\("]),
    ("word, rare", {"q": "haystack_7777", "word": "true", "case": "true"},
     ["-w", "-F", "-e", "haystack_7777"]),
]


def make_repository(root: Path) -> None:
    for index in range(FILES):
        folder = root / f"pkg{index % 40}" / f"sub{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"import os\n\n\ndef haystack_{index}(value):\n"]
        lines += [f"    value = value + {n}  # line {n} of module {index}\n" for n in range(40)]
        if index % 10 == 0:
            lines.append(f"\n\ndef find_needle(x):\n    return x.index('Needle {index}')\n")
        (folder / f"mod_{index}.py").write_text("".join(lines))
    ignored = root / "build"
    ignored.mkdir()
    for index in range(200):
        (ignored / f"gen_{index}.py").write_text("needle\n" * 50)
    (root / ".gitignore").write_text("build/\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "files"], cwd=root, check=True)


TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds of a process and of its children it has waited for (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / TICKS


def children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def time_route(client: httpx.Client, pid: str, params: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    with client.stream("GET", f"/api/projects/{pid}/search", params=params) as response:
        response.raise_for_status()
        lines = sum(1 for _ in response.iter_lines())
    return time.perf_counter() - start, lines - 1


def time_git(root: Path, args: list[str]) -> tuple[float, int]:
    start = time.perf_counter()
    out = subprocess.run(["git", "grep", "-n", "-I", *args], cwd=root, capture_output=True, check=False)
    return time.perf_counter() - start, out.stdout.count(b"\n")


def compare(client: httpx.Client, pid: str, server: int, root: Path, params: dict[str, str],
            args: list[str]) -> str:
    """One query, RUNS times each way interleaved: the table row's cells after the query's name."""
    route, git = [], []
    route_cpu = git_cpu = 0.0
    for _ in range(RUNS):
        before = process_cpu(server)
        seconds, found = time_route(client, pid, params)
        route_cpu += process_cpu(server) - before
        route.append(seconds)
        before = children_cpu()
        seconds, lines = time_git(root, args)
        git_cpu += children_cpu() - before
        git.append(seconds)
    ours, theirs = statistics.median(route), statistics.median(git)
    return (f"{found} / {lines} | {ours * 1000:.0f} ms | {theirs * 1000:.0f} ms | {ours / theirs:.2f}× | "
            f"{route_cpu / RUNS * 1000:.0f} / {git_cpu / RUNS * 1000:.0f} ms ({route_cpu / git_cpu:.2f}×)")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp, "repo")
        root.mkdir()
        make_repository(root)
        proc, url, token = start_server(Path(tmp, "data"))
        try:
            client = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120)
            pid = client.post("/api/projects", json={"name": "bench", "path": str(root)}).json()["id"]
            # The first request that reaches a router makes FastAPI build that router's route
            # state (hundreds of ms of CPU, once per process): one search before the timed ones.
            before = process_cpu(proc.pid)
            seconds, _ = time_route(client, pid, {"q": "warm-up"})
            first_cpu = process_cpu(proc.pid) - before
            print(f"{FILES} files; first search after start-up: {seconds * 1000:.0f} ms, "
                  f"{first_cpu * 1000:.0f} ms CPU (not counted below)")
            print(f"median of {RUNS} runs each, interleaved\n")
            print("| query | matches (route / git grep lines) | route | git grep | ratio | CPU route / git |")
            print("|---|---|---|---|---|---|")
            for name, params, args in QUERIES:
                print(f"| {name} | {compare(client, pid, proc.pid, root, params, args)} |")
        finally:
            stop_server(proc)


if __name__ == "__main__":
    main()
