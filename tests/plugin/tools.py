"""Running the model tools: through the real runner in a fresh worker, or through the API."""

from pathlib import Path

from fastapi.testclient import TestClient

from server.modeltools.runner import Limits, Outcome, WorkerSpec, run_worker
from tests.waiting import wait_until


def run_tool(tool: str, args: dict, run_dir: Path, timeout: float = 60.0, **kw) -> Outcome:
    """Run one tool through the real runner (fresh worker process)."""
    spec = WorkerSpec(tool, args, run_dir, Limits(timeout_s=timeout), **kw)
    return run_worker(spec)


def wait_for_run(client: TestClient, run_id: str, timeout: float = 60.0) -> dict:
    """Poll a tool run of the API until it is final; its last answer."""
    return wait_until(lambda: (run := client.get(f"/api/tool-runs/{run_id}").json())["status"]
                      not in ("queued", "running") and run, timeout, f"tool run {run_id} to finish")
