"""A real ``JobSink`` that keeps what runners report and can wait for it; job specs for tests."""

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.core.db import new_id
from server.training.runner import JobSpec, Transition
from tests.waiting import SCALE


class RecordingSink:
    def __init__(self) -> None:
        self.transitions: dict[str, list[Transition]] = {}
        self.log_batches: dict[str, list[tuple[int, str, int]]] = {}
        self.points: dict[str, list[dict[str, Any]]] = {}
        self._changed = threading.Condition()

    def transition(self, job_id: str, change: Transition) -> None:
        with self._changed:
            self.transitions.setdefault(job_id, []).append(change)
            self._changed.notify_all()

    def log(self, job_id: str, offset: int, text: str, next_offset: int) -> None:
        with self._changed:
            self.log_batches.setdefault(job_id, []).append((offset, text, next_offset))
            self._changed.notify_all()

    def metrics(self, job_id: str, points: list[dict[str, Any]]) -> None:
        with self._changed:
            self.points.setdefault(job_id, []).extend(points)
            self._changed.notify_all()

    def wait_for(self, check: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout * SCALE
        with self._changed:
            while not check():
                left = deadline - time.monotonic()
                assert left > 0, "timed out waiting for the runner"
                self._changed.wait(left)

    def status(self, job_id: str) -> str | None:
        changes = self.transitions.get(job_id)
        return changes[-1].status if changes else None

    def wait_status(self, job_id: str, *statuses: str, timeout: float = 20.0) -> Transition:
        self.wait_for(lambda: self.status(job_id) in statuses, timeout)
        return self.transitions[job_id][-1]

    def text(self, job_id: str) -> str:
        return "".join(text for _, text, _ in self.log_batches.get(job_id, []))


def make_spec(tmp_path: Path, script: str, command: str = "python job.py", **config) -> JobSpec:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "job.py").write_text(script)
    job_id = new_id()
    return JobSpec(id=job_id, project_id="p1", project_path=project, command=command,
                   config=config, interpreter=sys.executable, job_dir=tmp_path / "jobs" / job_id)
