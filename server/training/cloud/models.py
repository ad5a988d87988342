"""What the client returns about cloud jobs and machine types."""

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

# Statuses after which a DLC job never changes again.
TERMINAL_STATUSES = frozenset({"Succeeded", "Failed", "Stopped"})
# DLC statuses before the user's command starts; every other non-terminal one counts as running.
WAITING_STATUSES = frozenset({"Creating", "Queuing", "Bidding", "EnvPreparing", "SanityChecking"})


def _time(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


class JobRequest(BaseModel):
    """One job to submit. Empty optional fields fall back to ``PaiDlcSettings``."""

    display_name: str = Field(min_length=1, max_length=256)
    command: str = Field(min_length=1)
    code_source_id: str
    commit: str
    output_prefix: str
    branch: str | None = None
    envs: dict[str, str] = {}
    image: str | None = None
    ecs_spec: str | None = None
    pod_count: int | None = Field(default=None, ge=1, le=64)
    job_type: str | None = None
    max_running_minutes: int | None = Field(default=None, ge=1)


class CloudPod(BaseModel):
    pod_id: str
    pod_type: str = ""
    status: str = ""


class CloudJob(BaseModel):
    job_id: str
    display_name: str = ""
    status: str
    reason_code: str = ""
    reason_message: str = ""
    created_at: datetime | None = None
    running_at: datetime | None = None
    finished_at: datetime | None = None
    duration_seconds: int = 0
    pods: list[CloudPod] = []

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def runner_status(self) -> str:
        """The job row's status: queued, running, succeeded, failed or stopped."""
        if self.status in TERMINAL_STATUSES:
            return self.status.lower()
        return "queued" if self.status in WAITING_STATUSES else "running"

    @classmethod
    def from_sdk(cls, body: Any) -> "CloudJob":
        return cls(
            job_id=body.job_id,
            display_name=body.display_name or "",
            status=body.status or "",
            reason_code=body.reason_code or "",
            reason_message=body.reason_message or "",
            created_at=_time(body.gmt_create_time),
            running_at=_time(body.gmt_running_time),
            finished_at=_time(body.gmt_finish_time),
            duration_seconds=int(body.duration or 0),
            pods=[
                CloudPod(pod_id=p.pod_id, pod_type=p.type or "", status=p.status or "")
                for p in body.pods or []
            ],
        )


class EcsSpecInfo(BaseModel):
    instance_type: str
    cpu: int = 0
    memory_gb: int = 0
    gpu: int = 0
    gpu_type: str = ""
    accelerator_type: str = ""
    available: bool = True

    @classmethod
    def from_sdk(cls, spec: Any) -> "EcsSpecInfo":
        return cls(
            instance_type=spec.instance_type,
            cpu=int(spec.cpu or 0),
            memory_gb=int(spec.memory or 0),
            gpu=int(spec.gpu or 0),
            gpu_type=spec.gpu_type or "",
            accelerator_type=spec.accelerator_type or "",
            available=spec.is_available is not False,
        )
