"""The ``jobs`` and ``log`` events of training jobs: status, log, metrics, the venv, artifacts."""

from typing import Any, ClassVar

from device_bridge.tab_events import Channel, TabEvent
from server.training.cloud import DownloadProgress
from server.training.models import JobPublic


class JobStatus(TabEvent):
    """A job's new state; a cloud job's also names the cloud's id and status as they change."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "job.status"
    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"cloud_job_id", "cloud_status"})
    job: JobPublic
    cloud_job_id: str | None = None
    cloud_status: str | None = None


class JobLog(TabEvent):
    """Log text of a job from byte ``offset`` to ``next_offset``."""

    CHANNEL: ClassVar[Channel] = "log"
    TYPE: ClassVar[str] = "job.log"
    job_id: str
    offset: int
    next_offset: int
    text: str


class JobMetric(TabEvent):
    """New metric points of a job."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "job.metric"
    job_id: str
    points: list[dict[str, Any]]


class VenvProgress(TabEvent):
    """A line of output of a step (``create``, ``install``) of making the project's venv."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "venv.progress"
    step: str
    line: str


class VenvDone(TabEvent):
    """The project's venv is made (``interpreter``), or a step failed (``reason``)."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "venv.done"
    ok: bool
    interpreter: str | None
    reason: str | None


class ArtifactsProgress(DownloadProgress, TabEvent):
    """How far pulling a job's artifacts got."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "artifacts.progress"
    job_id: str


class JobCloudStatus(TabEvent):
    """A PAI-DLC job's status in the cloud changed (``Queuing``, ``Running``, …)."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "job.cloud_status"
    job_id: str
    status: str


class JobCloudError(TabEvent):
    """Following a PAI-DLC job failed for now (the cloud or its settings); it is tried again."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "job.cloud_error"
    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"request_id", "cloud_code"})
    job_id: str
    detail: str
    code: str
    request_id: str | None = None
    cloud_code: str | None = None


class JobCloudEvent(TabEvent):
    """One of a PAI-DLC job's events (``GetJobEvents``), each told once."""

    CHANNEL: ClassVar[Channel] = "jobs"
    TYPE: ClassVar[str] = "job.event"
    job_id: str
    event: str
