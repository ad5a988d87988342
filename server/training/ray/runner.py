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

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Conflict, Invalid, NotFound
from server.core.events import EventHub
from server.core.leftovers import scratch_prefix
from server.training.cloud.artifacts import ProgressCallback
from server.training.logfile import LOG_FILE, rebuild_metrics
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
from server.training.watchers import Watchers

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


class RayRunner:
    def __init__(self, sink: JobSink, jobs_dir: Path, store: RaySettingsStore,
                 hub: EventHub) -> None:
        self.store = store
        self.hub = hub
        self._sink = sink
        self._jobs_dir = jobs_dir
        self._watchers: Watchers[RayWatcher] = Watchers()

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
        self._sink.transition(spec.id, Transition(
            "queued", extra={"submission_id": state.submission_id}))
        self._watch(spec, state)

    def resume(self, spec: JobSpec, record: ProcessRecord) -> None:
        """Follow a job an earlier server submitted, from the bytes its log already has."""
        state = load_state(spec.job_dir)
        if state is None:
            self._sink.transition(spec.id, Transition("failed", reason=NEVER_SUBMITTED,
                                                      finished_at=utcnow()))
            return
        log = spec.job_dir / LOG_FILE
        with log.open("ab") as handle:  # drop bytes appended after the state was saved
            handle.truncate(min(state.log_size, handle.tell()))
        state.log_size = log.stat().st_size
        rebuild_metrics(spec.job_dir)
        self._watch(spec, state)

    def _watch(self, spec: JobSpec, state: RayState) -> None:
        watcher = RayWatcher(spec.id, spec.job_dir, state, lambda: self.connect(spec.project_id),
                             self._sink, self._watchers.forget)
        self._watchers.start(spec.id, watcher)

    def _state(self, job_id: str) -> RayState:
        state = load_state(self._jobs_dir / job_id)
        if state is None:
            raise NotFound("the job never reached the Ray cluster", code=ErrorCode.JOB_FILES_MISSING)
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

    def close(self) -> None:
        """Stop watching; the jobs keep running on the cluster and the next server resumes."""
        self._watchers.close_all()
