"""The PAI-DLC (2020-12-03) and AIWorkspace (2021-02-04) ROA operations."""

import json
import re
import secrets
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, unquote

from .clock import iso, iso_nano, now_ns, parse_ns
from .errors import ApiError, Request, Response, json_response
from .executor import Executor, parse_oss_uri
from .jobs import TERMINAL, Job, make_pods, new_job_id
from .oss import ObjectStore

DLC_VERSION = "2020-12-03"
WORKSPACE_VERSION = "2021-02-04"
JOB_TYPES = {
    "TFJob",
    "PyTorchJob",
    "MPIJob",
    "XGBoostJob",
    "OneFlowJob",
    "ElasticBatchJob",
    "SlurmJob",
    "RayJob",
}
DEFAULT_ECS_SPECS = [
    {
        "InstanceType": "ecs.c6.large",
        "Cpu": 2,
        "Memory": 4,
        "Gpu": 0,
        "GpuType": "",
        "AcceleratorType": "CPU",
    },
    {
        "InstanceType": "ecs.g6.xlarge",
        "Cpu": 4,
        "Memory": 16,
        "Gpu": 0,
        "GpuType": "",
        "AcceleratorType": "CPU",
    },
    {
        "InstanceType": "ecs.g6.2xlarge",
        "Cpu": 8,
        "Memory": 32,
        "Gpu": 0,
        "GpuType": "",
        "AcceleratorType": "CPU",
    },
    {
        "InstanceType": "ecs.gn6i-c4g1.xlarge",
        "Cpu": 4,
        "Memory": 15,
        "Gpu": 1,
        "GpuType": "NVIDIA T4",
        "AcceleratorType": "GPU",
    },
    {
        "InstanceType": "ecs.gn7i-c8g1.2xlarge",
        "Cpu": 8,
        "Memory": 30,
        "Gpu": 1,
        "GpuType": "NVIDIA A10",
        "AcceleratorType": "GPU",
    },
]

_ID = r"(?P<id>[^/]+)"
# (version, action, method, path pattern, handler method), as in the SDKs' ROA definitions.
_ROUTES = [
    (version, action, method, re.compile(path), handler)
    for version, action, method, path, handler in [
        (DLC_VERSION, "CreateJob", "POST", r"/api/v1/jobs", "create_job"),
        (DLC_VERSION, "ListJobs", "GET", r"/api/v1/jobs", "list_jobs"),
        (DLC_VERSION, "GetJob", "GET", rf"/api/v1/jobs/{_ID}", "get_job"),
        (DLC_VERSION, "StopJob", "POST", rf"/api/v1/jobs/{_ID}/stop", "stop_job"),
        (DLC_VERSION, "DeleteJob", "DELETE", rf"/api/v1/jobs/{_ID}", "delete_job"),
        (DLC_VERSION, "GetPodLogs", "GET", rf"/api/v1/jobs/{_ID}/pods/(?P<pod>[^/]+)/logs", "pod_logs"),
        (DLC_VERSION, "GetJobEvents", "GET", rf"/api/v1/jobs/{_ID}/events", "job_events"),
        (DLC_VERSION, "ListEcsSpecs", "GET", r"/api/v1/ecsspecs", "ecs_list"),
        (WORKSPACE_VERSION, "CreateCodeSource", "POST", r"/api/v1/codesources", "create_code_source"),
        (WORKSPACE_VERSION, "ListCodeSources", "GET", r"/api/v1/codesources", "list_code_sources"),
        (WORKSPACE_VERSION, "GetCodeSource", "GET", rf"/api/v1/codesources/{_ID}", "get_code_source"),
    ]
]

Handler = Callable[[Request, dict[str, str], dict[str, Any]], dict[str, Any]]


class OpenApi:
    """Routes ``(version, method, path)`` to an operation; answers JSON like the real gateway."""

    def __init__(self, store: ObjectStore, executor: Executor) -> None:
        self.store = store
        self.executor = executor
        self.jobs: dict[str, Job] = {}
        self.code_sources: dict[str, dict[str, Any]] = {}
        self.ecs_specs = [{**s, "IsAvailable": True, "ResourceType": "ECS"} for s in DEFAULT_ECS_SPECS]
        self._lock = threading.Lock()
        self._faults: dict[str, ApiError] = {}

    def inject_fault(self, action: str, error: ApiError) -> None:
        """Answer the next ``action`` call with ``error`` (throttling, quota, outages...)."""
        with self._lock:
            self._faults[action] = error

    def handle(self, req: Request) -> Response:
        version = req.headers.get("x-acs-version", "")
        for route_version, action, method, pattern, name in _ROUTES:
            match = pattern.fullmatch(req.path)
            if route_version == version and method == req.method and match:
                if req.headers.get("x-acs-action") != action:
                    break
                with self._lock:
                    fault = self._faults.pop(action, None)
                if fault:
                    raise fault
                params = {k: unquote(v) for k, v in match.groupdict().items()}
                query = dict(parse_qsl(req.query, keep_blank_values=True))
                body = json.loads(req.body or b"{}") if req.method == "POST" else {}
                handler: Handler = getattr(self, name)
                result = handler(req, params, {**query, **body})
                return json_response(req, 200, {"RequestId": req.request_id, **result})
        raise ApiError(
            404,
            "InvalidAction.NotFound",
            "Specified api is not found, please check your url and method.",
        )

    # --- DLC jobs -----------------------------------------------------------------------
    def create_job(self, req: Request, _: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        for name in ("DisplayName", "JobType", "JobSpecs", "UserCommand", "WorkspaceId"):
            if not body.get(name):
                raise ApiError(400, "MissingParameter", f"{name} is mandatory for this action.")
        if body["JobType"] not in JOB_TYPES:
            raise _invalid(f"JobType '{body['JobType']}' is not supported.")
        known = {s["InstanceType"] for s in self.ecs_specs}
        for spec in body["JobSpecs"]:
            if not spec.get("Image"):
                raise _invalid("JobSpecs.Image is mandatory.")
            if not body.get("ResourceId") and spec.get("EcsSpec") not in known:
                raise _invalid(
                    f"The EcsSpec '{spec.get('EcsSpec')}' is invalid or not available in this region."
                )
        code = body.get("CodeSource") or {}
        code_source = self.code_sources.get(code.get("CodeSourceId", ""))
        if code_source is None:
            raise _invalid(f"CodeSource '{code.get('CodeSourceId')}' does not exist.")
        for source in body.get("DataSources") or []:
            try:
                bucket, _prefix = parse_oss_uri(str(source.get("Uri", "")))
                self.store.keys(bucket, "")
            except (ValueError, ApiError) as exc:
                raise _invalid(f"DataSources.Uri '{source.get('Uri')}' is invalid.") from exc
        job_id = new_job_id()
        job = Job(job_id, body, body["WorkspaceId"], make_pods(job_id, body["JobSpecs"]))
        job.set_status("Creating")
        with self._lock:
            self.jobs[job_id] = job
        self.executor.start(job, code_source)
        return {"JobId": job_id}

    def _job(self, job_id: str) -> Job:
        with self._lock:
            job = self.jobs.get(job_id)
        if job is None:
            raise ApiError(404, "JobNotFound", f"Job {job_id} is not found.")
        return job

    def get_job(self, _: Request, params: dict[str, str], __: dict[str, Any]) -> dict[str, Any]:
        return self._job(params["id"]).to_api()

    def list_jobs(self, _: Request, __: dict[str, str], q: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            jobs = list(self.jobs.values())
        items = [j.to_api() for j in jobs]
        for key in ("WorkspaceId", "Status", "JobType", "DisplayName"):
            if q.get(key):
                items = [i for i in items if i.get(key) == q[key]]
        page, size = int(q.get("PageNumber") or 1), int(q.get("PageSize") or 50)
        items.sort(key=lambda i: i["GmtCreateTime"], reverse=True)
        return {"Jobs": items[(page - 1) * size : page * size], "TotalCount": len(items)}

    def stop_job(self, _: Request, params: dict[str, str], __: dict[str, Any]) -> dict[str, Any]:
        job = self._job(params["id"])
        if job.status in TERMINAL:
            raise ApiError(
                400,
                "InvalidJobStatus",
                f"Job {job.job_id} is already {job.status} and cannot be stopped.",
            )
        job.stop_requested.set()
        return {"JobId": job.job_id}

    def delete_job(self, _: Request, params: dict[str, str], __: dict[str, Any]) -> dict[str, Any]:
        job = self._job(params["id"])
        if job.status not in TERMINAL:
            raise ApiError(
                400,
                "InvalidJobStatus",
                f"Job {job.job_id} is {job.status}; stop it before deleting.",
            )
        with self._lock:
            del self.jobs[job.job_id]
        return {"JobId": job.job_id}

    def pod_logs(self, _: Request, params: dict[str, str], q: dict[str, Any]) -> dict[str, Any]:
        job = self._job(params["id"])
        pod = next((p for p in job.pods if p.pod_id == params["pod"]), None)
        if pod is None:
            raise ApiError(404, "PodNotFound", f"Pod {params['pod']} is not found in job {job.job_id}.")
        start, end = _time_window(q)
        limit = int(q.get("MaxLines") or 2000)
        lines = [f"{iso_nano(ns)} {text}" for ns, text in list(pod.logs) if start <= ns < end][:limit]
        return {
            "JobId": job.job_id,
            "PodId": pod.pod_id,
            "PodUid": f"uid-{pod.pod_id}",
            "Logs": lines,
        }

    def job_events(self, _: Request, params: dict[str, str], q: dict[str, Any]) -> dict[str, Any]:
        job = self._job(params["id"])
        start, end = _time_window(q)
        limit = int(q.get("MaxEventsNum") or 2000)
        events = [line for ns, line in job.event_lines() if start <= ns < end][:limit]
        return {"JobId": job.job_id, "Events": events}

    def ecs_list(self, _: Request, __: dict[str, str], q: dict[str, Any]) -> dict[str, Any]:
        specs = self.ecs_specs
        if q.get("AcceleratorType"):
            specs = [s for s in specs if s["AcceleratorType"] == q["AcceleratorType"]]
        if q.get("InstanceTypes"):
            wanted = set(str(q["InstanceTypes"]).split(","))
            specs = [s for s in specs if s["InstanceType"] in wanted]
        page, size = int(q.get("PageNumber") or 1), int(q.get("PageSize") or 50)
        return {"EcsSpecs": specs[(page - 1) * size : page * size], "TotalCount": len(specs)}

    # --- AIWorkspace code sources ---------------------------------------------------------
    def create_code_source(self, _: Request, __: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        for name in ("DisplayName", "CodeRepo"):
            if not body.get(name):
                raise ApiError(400, "MissingParameter", f"{name} is mandatory for this action.")
        source_id = "code-" + secrets.token_hex(10)
        stamp = iso(now_ns())
        item = {
            "CodeSourceId": source_id,
            "MountPath": "/root/code/",
            "Accessibility": "PRIVATE",
            "GmtCreateTime": stamp,
            "GmtModifyTime": stamp,
            "UserId": "emulator",
            **body,
        }
        with self._lock:
            self.code_sources[source_id] = item
        return {"CodeSourceId": source_id}

    def list_code_sources(self, _: Request, __: dict[str, str], q: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            items = [_public_code_source(i) for i in self.code_sources.values()]
        for key in ("WorkspaceId", "DisplayName"):
            if q.get(key):
                items = [i for i in items if i.get(key) == q[key]]
        page, size = int(q.get("PageNumber") or 1), int(q.get("PageSize") or 20)
        return {"CodeSources": items[(page - 1) * size : page * size], "TotalCount": len(items)}

    def get_code_source(self, _: Request, params: dict[str, str], __: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            item = self.code_sources.get(params["id"])
        if item is None:
            raise ApiError(404, "CodeSourceNotFound", f"Code source {params['id']} is not found.")
        return _public_code_source(item)

    def shutdown(self) -> None:
        with self._lock:
            jobs = list(self.jobs.values())
        self.executor.shutdown(jobs)


def _public_code_source(item: dict[str, Any]) -> dict[str, Any]:
    # The service never hands a stored access token back.
    return {**item, "CodeRepoAccessToken": "******" if item.get("CodeRepoAccessToken") else ""}


def _invalid(message: str) -> ApiError:
    return ApiError(400, "InvalidParameter", message)


def _time_window(q: dict[str, Any]) -> tuple[int, int]:
    start = parse_ns(str(q["StartTime"])) if q.get("StartTime") else 0
    end = parse_ns(str(q["EndTime"])) if q.get("EndTime") else None
    if start is None or (q.get("EndTime") and end is None):
        raise _invalid("StartTime and EndTime must look like 2006-01-02T15:04:05Z.")
    return start, end if end is not None else 2**63
