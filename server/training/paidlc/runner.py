"""The ``pai-dlc`` runner: jobs run on an Alibaba Cloud PAI-DLC cluster (docs/pai-dlc.md).

Before the row exists, ``PreparePaiDlc`` (``submit.py``) has made sure the commit is pushed
and has a code source. ``submit`` calls ``CreateJob`` with that commit, the command and the OSS
output prefix ``<oss_prefix>jobs/<job id>/`` (mounted read-write, ``$MNNWB_OUTPUT_DIR`` in the
job), then a ``CloudWatcher`` follows the job. The job folder ``<data_dir>/jobs/<id>/`` holds
``output.log`` and ``metrics.jsonl`` as for local jobs, plus ``cloud.json`` (see
``watch.py``), which is all a restarted server needs to resume watching.
"""

from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlalchemy.engine import Engine
from sqlmodel import Session

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, NotFound
from server.core.events import EventHub
from server.core.secrets import KEY_FILE, SecretBox
from server.training.cloud import DownloadedFile, JobRequest
from server.training.cloud.artifacts import ProgressCallback
from server.training.logfile import LOG_FILE, rebuild_metrics
from server.training.paidlc.settings import PaiDlcStore
from server.training.paidlc.submit import PreparePaiDlc, StoredCloudConfig
from server.training.paidlc.watch import CloudState, CloudWatcher, load_state, save_state
from server.training.runner import (
    Artifact,
    JobSink,
    JobSpec,
    JobStatus,
    LogChunk,
    ProcessRecord,
    Transition,
    log_chunk,
)
from server.training.service import JobManager
from server.training.watchers import Watchers
from server.users.models import User

BACKEND = "pai-dlc"
NEVER_SUBMITTED = "the server stopped before the job reached PAI-DLC"


class CloudJobInfo(BaseModel):
    """Where a job runs on PAI-DLC, for links to the console and the bucket."""

    job_id: str
    cloud_job_id: str
    cloud_status: str
    output_prefix: str


def job_request(spec: JobSpec, output_prefix: str) -> JobRequest:
    config = StoredCloudConfig.model_validate(spec.config)
    return JobRequest(
        display_name=f"mnnwb-{spec.id}", command=spec.command,
        code_source_id=config.code_source_id, commit=spec.commit or "", branch=config.branch,
        output_prefix=output_prefix, envs={**config.env, "MNNWB_JOB_ID": spec.id},
        image=config.image, ecs_spec=config.ecs_spec, pod_count=config.pod_count,
        job_type=config.job_type, max_running_minutes=config.max_running_minutes)


class PaiDlcRunner:
    def __init__(self, sink: JobSink, jobs_dir: Path, store: PaiDlcStore, hub: EventHub) -> None:
        self.store = store
        self.hub = hub
        self._sink = sink
        self._jobs_dir = jobs_dir
        self._watchers: Watchers[CloudWatcher] = Watchers()

    def submit(self, spec: JobSpec) -> None:
        client = self.store.connect().client
        prefix = client.settings.output_prefix(spec.id)
        cloud_id = client.create_job(job_request(spec, prefix))
        spec.job_dir.mkdir(parents=True, exist_ok=True)
        state = CloudState(cloud_job_id=cloud_id, output_prefix=prefix)
        save_state(spec.job_dir, state)
        self._sink.transition(spec.id, Transition("queued", extra={"cloud_job_id": cloud_id}))
        self._watch(spec, state)

    def resume(self, spec: JobSpec, record: ProcessRecord) -> None:
        """Continue watching a job an earlier server submitted, from its saved cursors."""
        state = load_state(spec.job_dir)
        if state is None:
            self._sink.transition(spec.id, Transition("failed", reason=NEVER_SUBMITTED,
                                                      finished_at=utcnow()))
            return
        log = spec.job_dir / LOG_FILE
        with log.open("ab") as handle:  # drop lines appended after the cursors were saved
            handle.truncate(min(state.log_size, handle.tell()))
        state.log_size = log.stat().st_size
        rebuild_metrics(spec.job_dir)
        self._watch(spec, state)

    def _watch(self, spec: JobSpec, state: CloudState) -> None:
        def notify(type_: str, data: dict[str, Any]) -> None:
            self.hub.publish(spec.project_id, "jobs", type_, data)

        watcher = CloudWatcher(spec.id, spec.job_dir, state, self.store.connect, self._sink,
                               notify, self._watchers.forget)
        self._watchers.start(spec.id, watcher)

    def _state(self, job_id: str) -> CloudState:
        state = load_state(self._jobs_dir / job_id)
        if state is None:
            raise NotFound("the job never reached PAI-DLC", code=ErrorCode.JOB_FILES_MISSING)
        return state

    def poll(self, job_id: str) -> JobStatus | None:
        watcher = self._watchers.active(job_id)
        state = watcher.state if watcher else load_state(self._jobs_dir / job_id)
        return state.status if state else None

    def logs(self, job_id: str, since: int) -> LogChunk:
        return log_chunk(self._jobs_dir / job_id, since, self._watchers.active(job_id) is not None)

    def stop(self, job_id: str) -> None:
        watcher = self._watchers.active(job_id)
        if watcher is None:
            raise Conflict("the job is not running", code=ErrorCode.JOB_NOT_RUNNING)
        watcher.state.stop_requested = True
        self.store.connect().client.stop_job(watcher.state.cloud_job_id)

    def artifacts(self, job_id: str) -> list[Artifact]:
        state = self._state(job_id)
        found = self.store.connect().client.list_artifacts(state.output_prefix)
        return [Artifact(path=item.path, size=item.size) for item in found]

    def download(self, job_id: str, dest: Path,
                 progress: ProgressCallback | None = None) -> list[DownloadedFile]:
        """Download the job's OSS output prefix into ``dest`` (checksummed, resumable)."""
        state = self._state(job_id)
        return self.store.connect().client.download_artifacts(state.output_prefix, dest, progress)

    def info(self, job_id: str) -> CloudJobInfo:
        watcher = self._watchers.active(job_id)
        state = watcher.state if watcher else self._state(job_id)
        return CloudJobInfo(job_id=job_id, cloud_job_id=state.cloud_job_id,
                            cloud_status=state.cloud_status, output_prefix=state.output_prefix)

    def close(self) -> None:
        """Stop watching; the jobs keep running in the cloud and the next server resumes them."""
        self._watchers.close_all()


def cloud_info(jobs: JobManager, session: Session, user: User, job_id: str) -> CloudJobInfo:
    job = jobs.get_job(session, user, job_id)
    runner = jobs.runners.get(job.backend)
    if not isinstance(runner, PaiDlcRunner):
        raise NotFound("not a PAI-DLC job", code=ErrorCode.NOT_CLOUD_JOB)
    return runner.info(job.id)


def register_pai_dlc(jobs: JobManager, engine: Engine, hub: EventHub,
                     data_dir: Path) -> PaiDlcRunner:
    """Add the ``pai-dlc`` backend to the job manager (before ``jobs.start()``)."""
    store = PaiDlcStore(engine, SecretBox(data_dir / KEY_FILE))
    runner = PaiDlcRunner(jobs, jobs.jobs_dir, store, hub)
    jobs.register(BACKEND, runner, PreparePaiDlc(store, hub))
    return runner
