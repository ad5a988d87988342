"""The ``pai-dlc`` runner: jobs run on an Alibaba Cloud PAI-DLC cluster (docs/pai-dlc.md).

Before the row exists, ``PreparePaiDlc`` (``submit.py``) has made sure the commit is pushed
and has a code source. ``submit`` calls ``CreateJob`` with that commit, the command and the OSS
output prefix ``<oss_prefix>jobs/<job id>/`` (mounted read-write, ``$MNNWB_OUTPUT_DIR`` in the
job), then a ``CloudWatcher`` follows the job. The job folder ``<data_dir>/jobs/<id>/`` holds
``output.log`` and ``metrics.jsonl`` as for local jobs, plus ``cloud.json`` (see
``watch.py``), which is all a restarted server needs to resume watching.
"""

from pathlib import Path

from pydantic import BaseModel
from sqlalchemy.engine import Engine
from sqlmodel import Session

from device_bridge.tab_events import TabEvent
from server.core.error_codes import ErrorCode
from server.core.errors import NotFound
from server.core.events import EventHub
from server.core.secrets import KEY_FILE, SecretBox
from server.training.cloud import DownloadedFile, JobRequest
from server.training.cloud.artifacts import ProgressCallback
from server.training.cloud.base import CloudRunner
from server.training.paidlc.settings import PaiDlcStore
from server.training.paidlc.submit import PreparePaiDlc, StoredCloudConfig
from server.training.paidlc.watch import CloudState, CloudWatcher, load_state, save_state
from server.training.runner import Artifact, JobSink, JobSpec
from server.training.service import JobManager
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


class PaiDlcRunner(CloudRunner[CloudState, CloudWatcher]):
    never_submitted = NEVER_SUBMITTED
    never_reached = "the job never reached PAI-DLC"

    def __init__(self, sink: JobSink, jobs_dir: Path, store: PaiDlcStore, hub: EventHub) -> None:
        super().__init__(sink, jobs_dir)
        self.store = store
        self.hub = hub

    def submit(self, spec: JobSpec) -> None:
        client = self.store.connect().client
        prefix = client.settings.output_prefix(spec.id)
        cloud_id = client.create_job(job_request(spec, prefix))
        spec.job_dir.mkdir(parents=True, exist_ok=True)
        state = CloudState(cloud_job_id=cloud_id, output_prefix=prefix)
        save_state(spec.job_dir, state)
        self._submitted(spec, state, {"cloud_job_id": cloud_id})

    def load_state(self, job_dir: Path) -> CloudState | None:
        return load_state(job_dir)

    def _watcher(self, spec: JobSpec, state: CloudState) -> CloudWatcher:
        def notify(event: TabEvent) -> None:
            self.hub.emit(spec.project_id, event)

        return CloudWatcher(spec.id, spec.job_dir, state, self.store.connect, self._sink,
                            notify, self._watchers.forget)

    def _cancel(self, watcher: CloudWatcher) -> None:
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
        state = self._current(job_id) or self._state(job_id)
        return CloudJobInfo(job_id=job_id, cloud_job_id=state.cloud_job_id,
                            cloud_status=state.cloud_status, output_prefix=state.output_prefix)


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
