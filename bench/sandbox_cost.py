"""What the sandbox adds to each start: a job, a terminal, a tool worker.

    python bench/sandbox_cost.py [--pairs N]

Each kind starts the same command bare and through ``Sandbox.wrap`` (as the server does), in
interleaved pairs, and waits for the first thing the command does: the job's first line, the
shell's prompt answer, the tool worker's ``ready`` after its imports. It prints the median of
each and the median of the pairs' differences (the added milliseconds; goal <= 50 ms), with the
machine's load.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.modeltools.runner import REPO_ROOT, environment  # noqa: E402
from server.sandbox import Policy, Sandbox  # noqa: E402

JOB = [sys.executable, "-c", "print('ready', flush=True)"]
TERMINAL = ["bash", "--norc", "-i", "-c", "echo ready"]
TOOL = [sys.executable, "-P", "-m", "server.modeltools.worker", "--standby"]


def started(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Seconds from the start until the command writes ``ready``."""
    begin = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    assert process.stdout is not None and process.stdin is not None
    seen = b""
    while b"ready" not in seen:
        chunk = os.read(process.stdout.fileno(), 4096)
        if not chunk:
            raise RuntimeError(f"{argv[0]} ended before it was ready")
        seen += chunk
    elapsed = time.perf_counter() - begin
    process.stdin.close()
    process.stdout.close()
    process.kill()
    process.wait()
    return elapsed


def measure(name: str, argv: list[str], policy: Policy, sandbox: Sandbox, pairs: int,
            env: dict[str, str]) -> None:
    bare, boxed = [], []
    for _ in range(pairs):
        bare.append(started(argv, policy.cwd, env))
        boxed.append(started(sandbox.wrap(argv, policy), policy.cwd, env))
    added = statistics.median(b - a for a, b in zip(bare, boxed, strict=True)) * 1000
    print(f"{name:<26} bare {statistics.median(bare) * 1000:7.1f} ms   sandboxed "
          f"{statistics.median(boxed) * 1000:7.1f} ms   added (paired median) {added:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=21)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, {args.pairs} pairs")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        project = data / "projects" / "p"
        project.mkdir(parents=True)
        for network in ("none", "outbound"):
            sandbox = Sandbox(True, network=network, hidden=(data,))  # type: ignore[arg-type]
            user = sandbox.for_user_code(project, writable=(project,))
            measure(f"job ({network})", JOB, user, sandbox, args.pairs, dict(os.environ))
            measure(f"terminal ({network})", TERMINAL, user, sandbox, args.pairs,
                    dict(os.environ))
        sandbox = Sandbox(True, hidden=(data,))
        tool = sandbox.for_tool(project, writable=(project,))
        env = environment({})
        env["PYTHONPATH"] = str(REPO_ROOT)
        measure("tool worker (none)", TOOL, tool, sandbox, args.pairs, env)


if __name__ == "__main__":
    main()
