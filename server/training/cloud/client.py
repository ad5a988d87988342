"""``PaiDlcClient``: the handful of PAI-DLC, AIWorkspace and OSS calls the job runner needs.

    client = PaiDlcClient(settings)                     # credentials from the default chain
    client = PaiDlcClient(settings, PaiCredentials(...))  # or stored keys
    source = client.ensure_code_source(remote_url, "main")
    job_id = client.create_job(JobRequest(display_name=..., command="python train.py",
                                          code_source_id=source, commit=sha,
                                          output_prefix=settings.output_prefix(key)))
    client.get_job(job_id)            # CloudJob: status, reason, pods
    client.pod_logs(job_id, pod_id, cursor)  # LogChunk: new lines + cursor to pass next time
    client.job_events(job_id); client.stop_job(job_id); client.list_ecs_specs()
    client.list_artifacts(prefix); client.download_artifacts(prefix, dest, progress)

The command runs from the code mount (``CODE_MOUNT``), with the OSS output prefix mounted
read-write at ``OUTPUT_MOUNT`` and exposed as ``$MNNWB_OUTPUT_DIR``. Every SDK failure is raised
as a ``server.core.errors.AppError`` carrying the cloud ``request_id``. The SDKs are imported
when a client is made, not with this module (see ``errors.py``).
"""

import hashlib
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from .artifacts import Artifact, ArtifactStore, DownloadedFile, ProgressCallback
from .credentials import chain_provider, credential_client
from .errors import cloud_error, sdk_errors
from .logs import LogChunk, LogCursor, take_new
from .models import CloudJob, EcsSpecInfo, JobRequest
from .settings import PaiCredentials, PaiDlcSettings

CODE_MOUNT = "/root/code/"
OUTPUT_MOUNT = "/mnt/mnnwb-output/"
LOG_PAGE_LINES = 500
LOG_MAX_PAGES = 20
T = TypeVar("T")

if TYPE_CHECKING:
    from alibabacloud_pai_dlc20201203 import models as dlc_models
    from alibabacloud_tea_openapi.utils_models import Config


class PaiDlcClient:
    def __init__(
        self,
        settings: PaiDlcSettings,
        credentials: PaiCredentials | None = None,
        *,
        chunk_size: int = 1 << 20,
    ) -> None:
        from alibabacloud_aiworkspace20210204.client import Client as WorkspaceSdk
        from alibabacloud_pai_dlc20201203.client import Client as DlcSdk
        from darabonba.runtime import RuntimeOptions

        self.settings = settings
        self._secrets = credentials.secrets() if credentials else []
        creds = credential_client(credentials)
        self._dlc = DlcSdk(self._config(settings.endpoint, creds))
        self._ws = WorkspaceSdk(self._config(settings.workspace_endpoint, creds))
        self._runtime = RuntimeOptions(autoretry=False)
        self.artifacts = ArtifactStore(settings, chain_provider(creds), self._secrets, chunk_size)

    def __repr__(self) -> str:
        return f"PaiDlcClient(region={self.settings.region!r})"

    def _config(self, endpoint: str | None, creds: object) -> "Config":
        from alibabacloud_tea_openapi.utils_models import Config

        timeout_ms = int(self.settings.timeout_seconds * 1000)
        return Config(
            credential=creds,
            region_id=self.settings.region,
            endpoint=endpoint,
            protocol=self.settings.protocol,
            read_timeout=timeout_ms,
            connect_timeout=timeout_ms,
        )

    def _call(self, what: str, fn: Callable[..., T], *args: object, extra_secrets: tuple[str, ...] = ()) -> T:
        try:
            return fn(*args)
        except sdk_errors() as exc:
            raise cloud_error(exc, what, [*self._secrets, *extra_secrets]) from exc

    # --- code sources -------------------------------------------------------------------
    def ensure_code_source(
        self, repo_url: str, branch: str, username: str | None = None, token: str | None = None
    ) -> str:
        """The id of this workspace's code source for ``repo_url``@``branch``; made if missing.

        ``username``/``token`` are only sent when the source is created: the service never
        returns a stored token, so an existing source is reused as it is.
        """
        from alibabacloud_aiworkspace20210204 import models as ws_models

        name = _code_source_name(repo_url, branch)
        req = ws_models.ListCodeSourcesRequest(
            workspace_id=self.settings.workspace_id or None, display_name=name, page_size=100
        )
        found = self._call("AIWorkspace ListCodeSources", self._ws.list_code_sources, req)
        for item in found.body.code_sources or []:
            if item.code_repo == repo_url and item.code_branch == branch:
                return str(item.code_source_id)
        create = ws_models.CreateCodeSourceRequest(
            display_name=name,
            code_repo=repo_url,
            code_branch=branch,
            code_repo_user_name=username,
            code_repo_access_token=token,
            mount_path=CODE_MOUNT,
            workspace_id=self.settings.workspace_id or None,
            accessibility="PRIVATE",
            description="Created by MNN Workbench",
        )
        made = self._call(
            "AIWorkspace CreateCodeSource",
            self._ws.create_code_source,
            create,
            extra_secrets=(token,) if token else (),
        )
        return str(made.body.code_source_id)

    # --- jobs -----------------------------------------------------------------------------
    def create_job(self, job: JobRequest) -> str:
        """Submit ``job.command`` (run from the code folder) at ``job.commit``; returns its id."""
        made = self._call(
            "PAI-DLC CreateJob",
            self._dlc.create_job_with_options,
            _create_job_request(self.settings, job),
            {},
            self._runtime,
        )
        return str(made.body.job_id)

    def get_job(self, job_id: str) -> CloudJob:
        """The job's DLC status, reason and pods."""
        from alibabacloud_pai_dlc20201203 import models as dlc_models

        got = self._call(
            "PAI-DLC GetJob",
            self._dlc.get_job_with_options,
            job_id,
            dlc_models.GetJobRequest(need_detail=True),
            {},
            self._runtime,
        )
        return CloudJob.from_sdk(got.body)

    def stop_job(self, job_id: str) -> None:
        """Ask DLC to stop the job; it passes through Stopping to Stopped (poll ``get_job``)."""
        self._call("PAI-DLC StopJob", self._dlc.stop_job_with_options, job_id, {}, self._runtime)

    def job_events(self, job_id: str, max_events: int = 500) -> list[str]:
        from alibabacloud_pai_dlc20201203 import models as dlc_models

        req = dlc_models.GetJobEventsRequest(max_events_num=max_events)
        got = self._call(
            "PAI-DLC GetJobEvents",
            self._dlc.get_job_events_with_options,
            job_id,
            req,
            {},
            self._runtime,
        )
        return list(got.body.events or [])

    def pod_logs(self, job_id: str, pod_id: str, since: LogCursor | None = None) -> LogChunk:
        """Lines logged after ``since``, in order, each exactly once across calls."""
        from alibabacloud_pai_dlc20201203 import models as dlc_models

        cursor, lines, page = since or LogCursor(), [], LOG_PAGE_LINES
        for _ in range(LOG_MAX_PAGES):
            timed = cursor.time is not None
            req = dlc_models.GetPodLogsRequest(
                start_time=cursor.start_time(),
                max_lines=page if timed or not cursor.skip else cursor.skip + page,
            )
            got = self._call(
                "PAI-DLC GetPodLogs",
                self._dlc.get_pod_logs_with_options,
                job_id,
                pod_id,
                req,
                {},
                self._runtime,
            )
            raw = list(got.body.logs or [])
            fresh, cursor = take_new(raw, cursor)
            lines.extend(fresh)
            if len(raw) < (req.max_lines or 0):
                break
            if not fresh:  # a full page of lines already seen: ask for more at once
                page *= 2
        return LogChunk(lines=lines, cursor=cursor)

    def list_ecs_specs(self, accelerator_type: str | None = None) -> list[EcsSpecInfo]:
        from alibabacloud_pai_dlc20201203 import models as dlc_models

        req = dlc_models.ListEcsSpecsRequest(accelerator_type=accelerator_type, page_size=100)
        got = self._call(
            "PAI-DLC ListEcsSpecs", self._dlc.list_ecs_specs_with_options, req, {}, self._runtime
        )
        return [EcsSpecInfo.from_sdk(s) for s in got.body.ecs_specs or []]

    # --- artifacts ----------------------------------------------------------------------
    def list_artifacts(self, prefix: str) -> list[Artifact]:
        return self.artifacts.list_artifacts(prefix)

    def download_artifacts(
        self, prefix: str, dest: Path, progress: ProgressCallback | None = None
    ) -> list[DownloadedFile]:
        return self.artifacts.download_artifacts(prefix, dest, progress)


def _create_job_request(s: PaiDlcSettings, job: JobRequest) -> "dlc_models.CreateJobRequest":
    from alibabacloud_pai_dlc20201203 import models as dlc_models

    job_type = job.job_type or s.job_type
    spec = dlc_models.JobSpec(
        type="Master" if job_type == "PyTorchJob" else "Worker",
        image=job.image or s.image,
        pod_count=job.pod_count or s.pod_count,
        ecs_spec=job.ecs_spec or s.ecs_spec,
    )
    output = dlc_models.CreateJobRequestDataSources(
        uri=f"oss://{s.oss_bucket}/{job.output_prefix}", mount_path=OUTPUT_MOUNT, mount_access="ReadWrite"
    )
    code = dlc_models.CreateJobRequestCodeSource(
        code_source_id=job.code_source_id, branch=job.branch, commit=job.commit, mount_path=CODE_MOUNT
    )
    return dlc_models.CreateJobRequest(
        display_name=job.display_name,
        job_type=job_type,
        job_specs=[spec],
        user_command=f"cd {shlex.quote(CODE_MOUNT)} && {job.command}",
        workspace_id=s.workspace_id or None,
        resource_id=s.resource_id or None,
        envs={**job.envs, "MNNWB_OUTPUT_DIR": OUTPUT_MOUNT.rstrip("/")},
        code_source=code,
        data_sources=[output],
        job_max_running_time_minutes=job.max_running_minutes,
    )


def _code_source_name(repo_url: str, branch: str) -> str:
    tail = repo_url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "repo"
    digest = hashlib.sha256(f"{repo_url}#{branch}".encode()).hexdigest()[:8]
    return f"mnnwb-{tail[:40]}-{digest}"
