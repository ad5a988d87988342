"""The ``ray`` runner: jobs run on the team's Ray cluster through its Jobs API (docs/ray.md).

``submit`` packs the project at the job's commit (or the work tree, when chosen) with the small
script that uploads the outputs, and submits it as ``mnnwb-<job id>``; a ``RayWatcher`` follows
it. The job folder ``<data_dir>/jobs/<id>/`` holds ``output.log`` and ``metrics.jsonl`` as for
local jobs, plus ``ray.json``, written before the submission, which is all a restarted server
needs to find the job again.
"""

import shlex
import tempfile
from pathlib import Path

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Invalid
from server.core.events import EventHub
from server.core.leftovers import scratch_prefix
from server.training.cloud.artifacts import ProgressCallback
from server.training.cloud.base import CloudRunner
from server.training.ray.client import RayJobs, Resources
from server.training.ray.prepare import RayJobConfig
from server.training.ray.settings import RaySettingsStore
from server.training.ray.storage import (
    FetchedFile,
    Reader,
    fetch,
    location_for,
    read_manifest,
    storage_env,
)
from server.training.ray.watch import STATE_FILE, RayState, RayWatcher, load_state, save_state
from server.training.ray.workdir import (
    JOB_SCRIPT,
    add_job_script,
    copy_snapshot,
    export_commit,
    runtime_env,
)
from server.training.runner import Artifact, JobSink, JobSpec

BACKEND = "ray"
NEVER_SUBMITTED = "the server stopped before the job reached the Ray cluster"


def entrypoint(command: str) -> str:
    """The job script around the command, quoted as the local runner splits it (no shell)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise Invalid(f"cannot parse the command: {exc}", code=ErrorCode.BAD_COMMAND) from exc
    if not argv:
        raise Invalid("the command is empty", code=ErrorCode.BAD_COMMAND)
    return f"python {JOB_SCRIPT} -- {shlex.join(argv)}"


class RayRunner(CloudRunner[RayState, RayWatcher]):
    never_submitted = NEVER_SUBMITTED
    never_reached = "the job never reached the Ray cluster"

    def __init__(self, sink: JobSink, jobs_dir: Path, store: RaySettingsStore,
                 hub: EventHub) -> None:
        super().__init__(sink, jobs_dir)
        self.store = store
        self.hub = hub

    def connect(self, project_id: str) -> tuple[RayJobs, float]:
        cluster = self.store.cluster(project_id)
        return RayJobs(cluster.options.address, cluster.headers), cluster.options.poll_seconds

    def submit(self, spec: JobSpec) -> None:
        command = entrypoint(spec.command)
        cluster = self.store.cluster(spec.project_id)
        config = RayJobConfig.model_validate(spec.config)
        location = location_for(cluster, spec.id)
        env = {**config.env, **storage_env(cluster, location), "MNNWB_JOB_ID": spec.id,
               "PYTHONUNBUFFERED": "1"}
        resources = Resources(num_cpus=config.num_cpus, num_gpus=config.num_gpus,
                              memory=config.memory_mb * 2**20 if config.memory_mb else None)
        state = RayState(submission_id=f"mnnwb-{spec.id}", project_id=spec.project_id,
                         location=location)
        spec.job_dir.mkdir(parents=True, exist_ok=True)
        save_state(spec.job_dir, state)  # before submitting: a restart then finds the job
        jobs = RayJobs(cluster.options.address, cluster.headers)
        with tempfile.TemporaryDirectory(prefix=scratch_prefix("ray")) as folder:
            packed = Path(folder)
            if config.snapshot or spec.commit is None:
                copy_snapshot(spec.project_path, packed)
            else:
                export_commit(spec.project_path, spec.commit, packed)
            add_job_script(packed)
            try:
                jobs.submit(state.submission_id, command,
                            runtime_env(packed, env), resources)
            except AppError:
                (spec.job_dir / STATE_FILE).unlink(missing_ok=True)
                raise
        self._submitted(spec, state, {"submission_id": state.submission_id})

    def load_state(self, job_dir: Path) -> RayState | None:
        return load_state(job_dir)

    def _watcher(self, spec: JobSpec, state: RayState) -> RayWatcher:
        return RayWatcher(spec.id, spec.job_dir, state, lambda: self.connect(spec.project_id),
                          self._sink, self._watchers.forget)

    def _cancel(self, watcher: RayWatcher) -> None:
        save_state(watcher.job_dir, watcher.state)
        self.connect(watcher.state.project_id)[0].stop(watcher.state.submission_id)

    def artifacts(self, job_id: str) -> list[Artifact]:
        state = self._state(job_id)
        reader = Reader(self.store.cluster(state.project_id), state.location)
        manifest = read_manifest(reader, state.manifest_sha256)
        return [Artifact(path=entry.path, size=entry.size) for entry in manifest.files]

    def fetch(self, job_id: str, dest: Path, progress: ProgressCallback) -> list[FetchedFile]:
        """Download the job's artifacts into ``dest``, each checked against its sha256."""
        state = self._state(job_id)
        cluster = self.store.cluster(state.project_id)
        return fetch(cluster, state.location, state.manifest_sha256, dest, progress)
