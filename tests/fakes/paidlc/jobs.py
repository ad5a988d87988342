"""The state of emulated DLC jobs and pods, and how the API shows them."""

import secrets
import string
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any

from .clock import iso, iso_nano, now_ns

TERMINAL = {"Succeeded", "Failed", "Stopped"}
_ALPHABET = string.ascii_lowercase + string.digits


def new_job_id() -> str:
    return "dlc" + "".join(secrets.choice(_ALPHABET) for _ in range(13))


@dataclass
class Pod:
    pod_id: str
    pod_type: str
    rank: int
    status: str = "Pending"
    created: int = field(default_factory=now_ns)
    started: int | None = None
    finished: int | None = None
    exit_code: int | None = None
    proc: subprocess.Popen[bytes] | None = None
    logs: list[tuple[int, str]] = field(default_factory=list)

    def add_log(self, text: str) -> None:
        # Strictly increasing stamps, so a reader can resume from "the last one it saw".
        stamp = now_ns()
        if self.logs and stamp <= self.logs[-1][0]:
            stamp = self.logs[-1][0] + 1
        self.logs.append((stamp, text))

    def to_api(self) -> dict[str, Any]:
        return {
            "PodId": self.pod_id,
            "PodUid": f"uid-{self.pod_id}",
            "Type": self.pod_type,
            "Status": self.status,
            "Ip": f"10.0.0.{self.rank + 2}",
            "GmtCreateTime": iso(self.created),
            "GmtStartTime": iso(self.started),
            "GmtFinishTime": iso(self.finished),
        }


@dataclass
class Job:
    job_id: str
    body: dict[str, Any]
    workspace_id: str
    pods: list[Pod]
    status: str = "Creating"
    reason_code: str = ""
    reason_message: str = ""
    times: dict[str, int] = field(default_factory=lambda: {"GmtCreateTime": now_ns()})
    events: list[tuple[int, str]] = field(default_factory=list)
    stop_requested: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def set_status(self, status: str, reason_code: str = "", message: str = "") -> None:
        with self.lock:
            self.status = status
            self.reason_code = reason_code or self.reason_code
            self.reason_message = message or self.reason_message
            stamp_field = _STATUS_TIME_FIELDS.get(status)
            if stamp_field:
                self.times[stamp_field] = now_ns()
            if status in TERMINAL:
                self.times["GmtFinishTime"] = now_ns()
            kind = "Warning" if status == "Failed" else "Normal"
            text = f"job status changed to {status}" + (f": {message}" if message else "")
            self.events.append((now_ns(), f"{kind} JobStatusChanged {text}"))

    def to_api(self) -> dict[str, Any]:
        with self.lock:
            times = {k: iso(v) for k, v in self.times.items()}
            started = self.times.get("GmtRunningTime")
            end = self.times.get("GmtFinishTime") or now_ns()
            body = self.body
            data_sources = [
                {
                    "Uri": d.get("Uri"),
                    "MountPath": d.get("MountPath"),
                    "DataSourceId": d.get("DataSourceId", ""),
                }
                for d in body.get("DataSources") or []
            ]
            return {
                "JobId": self.job_id,
                "DisplayName": body.get("DisplayName"),
                "JobType": body.get("JobType"),
                "WorkspaceId": self.workspace_id,
                "ResourceId": body.get("ResourceId", ""),
                "Status": self.status,
                "SubStatus": "",
                "ReasonCode": self.reason_code,
                "ReasonMessage": self.reason_message,
                "UserCommand": body.get("UserCommand"),
                "Envs": body.get("Envs") or {},
                "JobSpecs": body.get("JobSpecs") or [],
                "CodeSource": body.get("CodeSource") or {},
                "DataSources": data_sources,
                "Duration": (end - started) // 1_000_000_000 if started else 0,
                "Pods": [p.to_api() for p in self.pods],
                **times,
            }

    def event_lines(self) -> list[tuple[int, str]]:
        with self.lock:
            return [(ns, f"{iso_nano(ns)} {text}") for ns, text in self.events]


_STATUS_TIME_FIELDS = {
    "Queuing": "GmtSubmittedTime",
    "Running": "GmtRunningTime",
    "Succeeded": "GmtSuccessedTime",
    "Failed": "GmtFailedTime",
    "Stopped": "GmtStoppedTime",
}


def make_pods(job_id: str, specs: list[dict[str, Any]]) -> list[Pod]:
    pods: list[Pod] = []
    for spec in specs:
        role = str(spec.get("Type") or "Worker")
        for index in range(int(spec.get("PodCount") or 1)):
            pods.append(Pod(f"{job_id}-{role.lower()}-{index}", role, len(pods)))
    return pods
