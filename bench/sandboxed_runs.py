"""Tool runs in a bench as the server starts them: each worker in the sandbox of its project.

A data directory of the server's shape (``projects/p``, ``tool-runs``, hidden from every
sandbox), a pool of one, and per run either the spare worker started ahead of need in the
project's sandbox (``spare=True``, what the server does) or a fresh sandboxed worker (what it
did before the spare was kept in the sandbox).
"""

import time
from functools import partial
from pathlib import Path

from server.modeltools.pool import WorkerPool
from server.modeltools.runner import Limits, SpareRecipe, WorkerSpec, Wrap, run_worker
from server.sandbox import Sandbox

LIMITS = Limits(timeout_s=600)
SPARE_READY_SECONDS = 60.0


class SandboxedRuns:
    def __init__(self, folder: Path) -> None:
        self.data = folder / "data"
        self.project = self.data / "projects" / "p"
        self.runs = self.data / "tool-runs"
        self.project.mkdir(parents=True)
        self.runs.mkdir()
        self.sandbox = Sandbox(True, hidden=(self.data,))
        if self.sandbox.state != "on":
            raise SystemExit(f"the sandbox cannot start here: {self.sandbox.reason}")
        self.pool = WorkerPool(size=1, limits=LIMITS)
        self.recipe = SpareRecipe(str(self.project), self._wrap)
        self._count = 0

    def _wrap(self, run_dir: Path) -> Wrap:
        """What ``ToolManager`` gives a worker: its run's folder and its project, no network."""
        run_dir.mkdir(parents=True, exist_ok=True)
        policy = self.sandbox.for_tool(run_dir, writable=(run_dir, self.project))
        return partial(self.sandbox.wrap, policy=policy)

    def run(self, tool: str, args: dict, spare: bool = True) -> tuple[float, dict]:
        """One run, timed from submit to outcome; with ``spare``, once the spare has done its
        imports (a server idle between runs has it; there is none before the first run)."""
        self._count += 1
        run_dir = self.runs / f"r{self._count}"
        spec = WorkerSpec(tool, args, run_dir, LIMITS, wrap=self._wrap(run_dir),
                          spare=self.recipe if spare else None)
        self.settle()
        start = time.perf_counter()
        outcome = self.pool.submit(spec).future.result() if spare else run_worker(spec)
        elapsed = time.perf_counter() - start
        if outcome.status != "succeeded":
            raise SystemExit(f"{tool} failed: {outcome.error}")
        return elapsed, outcome.result or {}

    def settle(self) -> None:
        """Wait until the spare has done its imports, so that they do not take a core from
        whatever is timed next (ours, the bare call, or a fresh worker)."""
        self.pool.spare_ready(SPARE_READY_SECONDS)

    def close(self) -> None:
        self.pool.shutdown()
