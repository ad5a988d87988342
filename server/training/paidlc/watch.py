"""Follows one PAI-DLC job: polls ``GetJob``, appends new pod log lines to the job's log file
(and the tab), parses metrics, surfaces ``GetJobEvents`` and reports the end.

Progress lives in ``cloud.json`` next to the log: the DLC job id, each pod's ``LogCursor`` and
the log size those cursors account for. It is saved after every append, so a restarted server
cuts the log back to that size and continues from the cursors: no line is lost or repeated.
"""

import logging
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from device_bridge.tab_events import TabEvent
from server.core.db import utcnow
from server.core.errors import AppError
from server.training.cloud import CloudJob, LogCursor, PaiDlcClient
from server.training.cloud.base import CloudWatcher as BaseWatcher
from server.training.cloud.base import RemoteState, load_json, save_json
from server.training.events import JobCloudError, JobCloudEvent, JobCloudStatus
from server.training.logfile import LOG_FILE
from server.training.paidlc.settings import Connection
from server.training.runner import JobSink, Transition

STATE_FILE = "cloud.json"
MAX_BACKOFF = 60.0
log = logging.getLogger("mnnwb.training")

Notify = Callable[[TabEvent], None]


class CloudState(RemoteState):
    cloud_job_id: str
    output_prefix: str
    cloud_status: str = ""
    cursors: dict[str, LogCursor] = {}
    events_seen: int = 0


def load_state(job_dir: Path) -> CloudState | None:
    return load_json(job_dir / STATE_FILE, CloudState)


def save_state(job_dir: Path, state: CloudState) -> None:
    save_json(job_dir / STATE_FILE, state)


def final_transition(job: CloudJob, stop_requested: bool, seen_running: bool) -> Transition:
    """How the job ended; a job that ran between two polls still gets its start time."""
    status = job.runner_status
    reason = None
    if status == "stopped":
        reason = "stopped on request" if stop_requested else "stopped in the cloud"
    elif status == "failed":
        reason = (f"{job.reason_message} [{job.reason_code}]" if job.reason_message
                  else f"the cloud job failed [{job.reason_code or job.status}]")
    return Transition(status, reason=reason, finished_at=utcnow(),  # type: ignore[arg-type]
                      started_at=None if seen_running else job.running_at,
                      extra={"cloud_job_id": job.job_id, "cloud_status": job.status})


class CloudWatcher(BaseWatcher[CloudState]):
    def __init__(self, job_id: str, job_dir: Path, state: CloudState,
                 connect: Callable[[], Connection], sink: JobSink, notify: Notify,
                 on_end: Callable[[str], None]) -> None:
        super().__init__(job_id, job_dir, state, sink, on_end, f"cloud-job-{job_id}")
        self._connect = connect
        self._notify = notify

    def save(self) -> None:
        save_state(self.job_dir, self.state)

    def _run(self) -> None:
        delay, backoff = 0.0, 1.0
        with (self.job_dir / LOG_FILE).open("ab") as out:
            while not self._closing.wait(delay):
                try:
                    connection = self._connect()
                    if self._tick(connection.client, out):
                        return
                    delay, backoff = connection.poll_seconds, 1.0
                except AppError as exc:  # the cloud or the settings: keep trying, tell the tab
                    self._notify(JobCloudError(job_id=self.job_id, detail=exc.detail, code=exc.code,
                                               request_id=exc.extra.get("request_id"),
                                               cloud_code=exc.extra.get("cloud_code")))
                    delay, backoff = backoff, min(backoff * 2, MAX_BACKOFF)
                except Exception:  # a bug must not leave the job unwatched for good
                    log.exception("watching cloud job %s failed; retrying", self.job_id)
                    delay, backoff = backoff, min(backoff * 2, MAX_BACKOFF)

    def _tick(self, client: PaiDlcClient, out: BinaryIO) -> bool:
        """One poll; True once the job has ended and its end was reported."""
        job = client.get_job(self.state.cloud_job_id)
        if job.status != self.state.cloud_status:
            self.state.cloud_status = job.status
            self._notify(JobCloudStatus(job_id=self.job_id, status=job.status))
        self._pump_logs(client, job, out)
        self._pump_events(client)
        if job.finished:
            self._end(final_transition(job, self.state.stop_requested,
                                       self.state.status == "running"))
            return True
        if job.runner_status == "running" and self.state.status != "running":
            self.state.status = "running"
            self._sink.transition(self.job_id, Transition(
                "running", started_at=utcnow(), extra={"cloud_job_id": job.job_id}))
        save_state(self.job_dir, self.state)
        return False

    def _pump_logs(self, client: PaiDlcClient, job: CloudJob, out: BinaryIO) -> None:
        label = len(job.pods) > 1
        for pod in job.pods:
            chunk = client.pod_logs(job.job_id, pod.pod_id, self.state.cursors.get(pod.pod_id))
            lines = [f"[{pod.pod_id}] {line}" if label else line for line in chunk.lines]
            self._append(out, "".join(f"{line}\n" for line in lines).encode())
            self.state.cursors[pod.pod_id] = chunk.cursor
            save_state(self.job_dir, self.state)

    def _pump_events(self, client: PaiDlcClient) -> None:
        events = client.job_events(self.state.cloud_job_id)
        for event in events[self.state.events_seen:]:
            self._notify(JobCloudEvent(job_id=self.job_id, event=event))
        self.state.events_seen = max(self.state.events_seen, len(events))
