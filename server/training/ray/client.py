"""Ray's Jobs API through ``ray.job_submission.JobSubmissionClient``, with our error shape.

``ray`` is imported on first use, not at server start: it is an optional extra and its import
takes seconds. Every failure to reach or use the dashboard becomes ``Unavailable``, a job the
cluster does not know becomes ``NotFound``.
"""

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, NotFound, Unavailable
from server.training.runner import JobStatus

T = TypeVar("T")
INSTALL_HINT = "install the workbench with its ray extra: pip install 'mnn-workbench[ray]'"
# Ray's JobStatus values and ours.
STATUSES: dict[str, JobStatus] = {"PENDING": "queued", "RUNNING": "running",
                                  "SUCCEEDED": "succeeded", "FAILED": "failed",
                                  "STOPPED": "stopped"}


@dataclass(frozen=True)
class RayJobInfo:
    ray_status: str
    message: str
    exit_code: int | None

    @property
    def status(self) -> JobStatus:
        return STATUSES.get(self.ray_status, "queued")

    @property
    def finished(self) -> bool:
        return self.status in ("succeeded", "failed", "stopped")


@dataclass(frozen=True)
class Resources:
    num_cpus: float | None = None
    num_gpus: float | None = None
    memory: int | None = None  # bytes


def _call(what: str, action: Callable[[], T]) -> T:
    try:
        return action()
    except AppError:
        raise
    except RuntimeError as exc:
        if "does not exist" in str(exc) or "404" in str(exc):
            raise NotFound(f"the Ray cluster does not know this job ({what})",
                           code=ErrorCode.RAY_JOB_MISSING) from exc
        raise Unavailable(f"Ray refused to {what}: {exc}", code=ErrorCode.RAY_ERROR) from exc
    except (OSError, ValueError) as exc:  # requests' ConnectionError is an OSError
        raise Unavailable(f"cannot reach the Ray dashboard to {what}: {exc}",
                          code=ErrorCode.RAY_UNREACHABLE) from exc


class RayJobs:
    """One dashboard's Jobs API."""

    def __init__(self, address: str, headers: dict[str, str]) -> None:
        try:
            from ray.job_submission import JobSubmissionClient
        except ImportError as exc:
            raise Unavailable(f"Ray is not installed: {INSTALL_HINT}",
                              code=ErrorCode.RAY_NOT_INSTALLED) from exc
        self.address = address
        self._client: Any = _call("connect", lambda: JobSubmissionClient(
            address, headers=headers))

    def submit(self, submission_id: str, entrypoint: str, runtime_env: dict[str, Any],
               resources: Resources) -> str:
        submitted: str = _call("submit the job", lambda: self._client.submit_job(
            entrypoint=entrypoint, submission_id=submission_id, runtime_env=runtime_env,
            entrypoint_num_cpus=resources.num_cpus, entrypoint_num_gpus=resources.num_gpus,
            entrypoint_memory=resources.memory, metadata={"mnnwb": "1"}))
        return submitted

    def info(self, submission_id: str) -> RayJobInfo:
        details = _call("read the job", lambda: self._client.get_job_info(submission_id))
        return RayJobInfo(ray_status=str(details.status.value if hasattr(details.status, "value")
                                         else details.status),
                          message=details.message or "", exit_code=details.driver_exit_code)

    def stop(self, submission_id: str) -> bool:
        stopped: bool = _call("stop the job", lambda: self._client.stop_job(submission_id))
        return stopped

    def tail(self, submission_id: str) -> AsyncIterator[str]:
        """The job's output from its start, chunk by chunk, until the job ends."""
        chunks: AsyncIterator[str] = self._client.tail_job_logs(submission_id)
        return chunks
