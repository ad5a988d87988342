"""Follows one Ray job: streams its output (``tail_job_logs``) into the job's log file and the
tab, parses ``MNNWB_METRIC`` lines as local jobs do, polls its status and reports the end.

Progress lives in ``ray.json`` next to the log: the submission id, where the artifacts go, and
how many bytes of the job's output the log holds. Ray's log stream always starts at the job's
first byte, so a restarted server (or a reconnected stream) skips what the log already has: no
line is lost or repeated. Only whole lines are written, so metrics are never parsed from half a
line.
"""

import asyncio
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from server.core.db import utcnow
from server.core.errors import AppError, NotFound
from server.training.cloud.base import CloudWatcher, RemoteState, load_json, save_json
from server.training.logfile import LOG_FILE
from server.training.ray.client import RayJobInfo, RayJobs
from server.training.ray.storage import StorageLocation
from server.training.runner import JobSink, Transition

STATE_FILE = "ray.json"
MAX_BACKOFF = 30.0
TAIL_GRACE = 10.0  # seconds the log stream may take to deliver its end after the job ended
TAIL_REFRESH = 5.0  # seconds of a silent log stream before a fresh one replaces it
MAX_REFRESH = 60.0
REASON_LIMIT = 2000
ARTIFACTS_LINE = re.compile(rb"^MNNWB_ARTIFACTS ([0-9a-f]{64})\s*$", re.M)
log = logging.getLogger("mnnwb.training")

Connect = Callable[[], tuple[RayJobs, float]]


class RayState(RemoteState):
    submission_id: str
    project_id: str
    location: StorageLocation
    ray_status: str = ""
    manifest_sha256: str | None = None


def load_state(job_dir: Path) -> RayState | None:
    return load_json(job_dir / STATE_FILE, RayState)


def save_state(job_dir: Path, state: RayState) -> None:
    save_json(job_dir / STATE_FILE, state)


def final_transition(info: RayJobInfo, stop_requested: bool) -> Transition:
    reason = None
    if info.status == "stopped":
        reason = "stopped on request" if stop_requested else (
            info.message or "stopped on the Ray cluster")
    elif info.status == "failed":
        reason = info.message or "the Ray job failed"
    return Transition(info.status, reason=reason and reason[:REASON_LIMIT],
                      exit_code=info.exit_code, finished_at=utcnow(),
                      extra={"ray_status": info.ray_status})


class RayWatcher(CloudWatcher[RayState]):
    def __init__(self, job_id: str, job_dir: Path, state: RayState, connect: Connect,
                 sink: JobSink, on_end: Callable[[str], None]) -> None:
        super().__init__(job_id, job_dir, state, sink, on_end, f"ray-job-{job_id}")
        self._connect = connect
        self._pending = b""
        self._last_output = 0.0
        self._refresh = TAIL_REFRESH
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None

    def save(self) -> None:
        save_state(self.job_dir, self.state)

    def close(self) -> None:
        """Stop following the job (its asyncio task too); it keeps running on the cluster."""
        self._closing.set()
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)
        super().close()

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except asyncio.CancelledError:
            pass

    async def _main(self) -> None:
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        if self._closing.is_set():
            return
        delay, backoff = 0.0, 1.0
        with (self.job_dir / LOG_FILE).open("ab") as out:
            while True:
                await asyncio.sleep(delay)
                try:
                    jobs, poll_seconds = await asyncio.to_thread(self._connect)
                    if await self._follow(jobs, poll_seconds, out):
                        return
                    delay, backoff = poll_seconds, 1.0
                except NotFound as exc:
                    self._end(Transition("failed", reason=exc.detail, finished_at=utcnow()))
                    return
                except AppError as exc:  # the cluster or the settings: keep trying
                    log.warning("Ray job %s: %s; retrying", self.job_id, exc.detail)
                    delay, backoff = backoff, min(backoff * 2, MAX_BACKOFF)
                except Exception:  # a bug must not leave the job unwatched for good
                    log.exception("watching Ray job %s failed; retrying", self.job_id)
                    delay, backoff = backoff, min(backoff * 2, MAX_BACKOFF)

    async def _follow(self, jobs: RayJobs, poll_seconds: float, out: BinaryIO) -> bool:
        """Tail and poll until the job ends (True) or the log stream breaks (False)."""
        tail: asyncio.Task[None] | None = None
        try:
            while True:
                info = await asyncio.to_thread(jobs.info, self.state.submission_id)
                if info.finished:
                    if tail is not None:
                        tail.cancel()
                    # A stream opened on an ended job replays all of it and ends: the log is whole.
                    tail = asyncio.create_task(self._tail(jobs, out))
                    await asyncio.wait([tail], timeout=TAIL_GRACE)
                    self._append(out, self._pending)
                    self._pending = b""
                    self._end(final_transition(info, self.state.stop_requested))
                    return True
                self._observe(info)
                if tail is not None and tail.done():
                    if not tail.cancelled() and tail.exception() is not None:
                        log.warning("Ray job %s: the log stream broke: %r", self.job_id,
                                    tail.exception())
                    return False
                if info.status == "running" and self._stale(tail):
                    if tail is not None:
                        tail.cancel()
                    tail = asyncio.create_task(self._tail(jobs, out))
                await asyncio.sleep(poll_seconds)
        finally:
            if tail is not None:
                tail.cancel()

    def _stale(self, tail: asyncio.Task[None] | None) -> bool:
        """Whether to (re)open the log stream. A stream opened while Ray still set the job up can
        stay silent while the log grows; a fresh one reads it from the start (the bytes the log
        has are skipped), so a silent stream is replaced, less often the longer the job is quiet."""
        now = time.monotonic()
        if tail is not None and now - self._last_output < self._refresh:
            return False
        if tail is not None:
            self._refresh = min(self._refresh * 2, MAX_REFRESH)
        self._last_output = now
        return True

    def _observe(self, info: RayJobInfo) -> None:
        self.state.ray_status = info.ray_status
        if info.status == "running" and self.state.status != "running":
            self.state.status = "running"
            save_state(self.job_dir, self.state)
            self._sink.transition(self.job_id, Transition(
                "running", started_at=utcnow(), extra={"ray_status": info.ray_status}))

    async def _tail(self, jobs: RayJobs, out: BinaryIO) -> None:
        consumed = 0
        async for chunk in jobs.tail(self.state.submission_id):
            data = chunk.encode()
            have = self.state.log_size + len(self._pending)
            fresh = data[max(0, have - consumed):] if consumed + len(data) > have else b""
            consumed += len(data)
            self._pending += fresh
            if fresh:
                self._last_output, self._refresh = time.monotonic(), TAIL_REFRESH
            cut = self._pending.rfind(b"\n") + 1
            if cut:
                self._append(out, self._pending[:cut])
                self._pending = self._pending[cut:]

    def _seen(self, piece: bytes) -> None:
        for match in ARTIFACTS_LINE.finditer(piece):
            self.state.manifest_sha256 = match[1].decode()
        self.save()
