"""Pull a finished job's artifacts into ``<project>/artifacts/<job id>/``.

Cloud jobs download their OSS output prefix (checksummed and resumable, see
``server/training/cloud/artifacts.py``); local jobs copy ``<project>/outputs/<job id>/``, so the
UI treats both alike. Progress goes to the project's ``jobs`` channel as ``artifacts.progress``
events, and ``artifacts.pulled`` follows with the files.
"""

import fcntl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel
from sqlmodel import Session

from device_bridge.tab_events import Channel, TabEvent
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict
from server.core.events import EventHub
from server.core.fsutil import publish
from server.projects import service as projects
from server.training.cloud import DownloadedFile, DownloadProgress
from server.training.cloud.artifacts import ProgressCallback, new_crc64
from server.training.events import ArtifactsProgress
from server.training.runner import ACTIVE_STATUSES
from server.training.service import JobManager
from server.users.models import User

ARTIFACTS_DIR = "artifacts"
PROGRESS_INTERVAL = 0.1
COPY_CHUNK = 1 << 20


class PulledFile(BaseModel):
    path: str
    size: int
    crc64: str
    sha256: str | None = None
    skipped: bool = False


class ArtifactsPulled(TabEvent):
    """A job's artifacts, pulled into the project; the tabs hear it as ``jobs``/``artifacts.pulled``."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "artifacts.pulled"
    job_id: str
    folder: str  # project-relative
    files: list[PulledFile]


@runtime_checkable
class Fetches(Protocol):
    """A runner whose artifacts are fetched with sha256 checks (the Ray runner)."""

    def fetch(self, job_id: str, dest: Path, progress: ProgressCallback) -> list[Any]: ...


@runtime_checkable
class Downloads(Protocol):
    """A runner whose artifacts live elsewhere and are downloaded."""

    def download(self, job_id: str, dest: Path,
                 progress: ProgressCallback | None = None) -> list[DownloadedFile]: ...


def _copy(source: Path, target: Path, report: ProgressCallback, base: int, total: int,
          rel: str) -> PulledFile:
    crc = new_crc64()
    part = target.with_name(target.name + ".part")
    size = source.stat().st_size
    done = 0
    target.parent.mkdir(parents=True, exist_ok=True)
    with source.open("rb") as src, part.open("wb") as out:
        for block in iter(lambda: src.read(COPY_CHUNK), b""):
            out.write(block)
            crc.update(block)
            done += len(block)
            report(DownloadProgress(path=rel, file_done=done, file_total=size, done=base + done,
                                    total=total))
    publish(part, target)
    return PulledFile(path=rel, size=done, crc64=str(crc.sum64()))


def copy_outputs(source: Path, dest: Path, report: ProgressCallback) -> list[PulledFile]:
    """Copy every file under ``source`` into ``dest`` (a local job's outputs)."""
    files = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else []
    total = sum(p.stat().st_size for p in files)
    pulled, base = [], 0
    for path in files:
        rel = path.relative_to(source).as_posix()
        pulled.append(_copy(path, dest / rel, report, base, total, rel))
        base += pulled[-1].size
    return pulled


def throttled_progress(hub: EventHub, project_id: str, job_id: str) -> ProgressCallback:
    """Publish progress at most every ``PROGRESS_INTERVAL`` seconds, and every file's end."""
    last = 0.0

    def report(progress: DownloadProgress) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_INTERVAL or progress.file_done == progress.file_total:
            last = now
            hub.emit(project_id, ArtifactsProgress(job_id=job_id, **progress.model_dump()))

    return report


@contextmanager
def pull_lock(job_dir: Path) -> Iterator[None]:
    """One pull of a job at a time (an OS lock, so a crashed pull never leaves it held)."""
    job_dir.mkdir(parents=True, exist_ok=True)
    with (job_dir / "pull.lock").open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Conflict("the job's artifacts are already being pulled",
                           code=ErrorCode.PULL_BUSY) from None
        yield


def pull_artifacts(jobs: JobManager, hub: EventHub, session: Session, user: User,
                   job_id: str) -> ArtifactsPulled:
    job = jobs.get_job(session, user, job_id)
    project = projects.get_project(session, user, job.project_id, "write")
    if job.status in ACTIVE_STATUSES:
        raise Conflict("the job is still running: pull its artifacts when it has ended",
                       code=ErrorCode.JOB_RUNNING)
    dest = Path(project.path) / ARTIFACTS_DIR / job.id
    report = throttled_progress(hub, project.id, job.id)
    runner = jobs.runners.get(job.backend)
    with pull_lock(jobs.jobs_dir / job.id):
        if isinstance(runner, Fetches):
            files = [PulledFile.model_validate(f, from_attributes=True)
                     for f in runner.fetch(job.id, dest, report)]
        elif isinstance(runner, Downloads):
            files = [PulledFile(path=f.path, size=f.size, crc64=f.crc64, skipped=f.skipped)
                     for f in runner.download(job.id, dest, report)]
        else:
            files = copy_outputs(Path(project.path) / "outputs" / job.id, dest, report)
    jobs.lineage.record_job_files(session, job, project.path, dest, jobs.jobs_dir / job.id)
    result = ArtifactsPulled(job_id=job.id, folder=f"{ARTIFACTS_DIR}/{job.id}", files=files)
    hub.emit(project.id, result)
    return result
