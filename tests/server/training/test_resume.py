"""Restart reconciliation in the local runner: a new runner re-attaches to a live job or settles
how it ended; a job is never left running."""

import os
from pathlib import Path

import psutil
import pytest

from server.sandbox import Sandbox
from server.training.local import RESTART_LOST, LocalRunner
from server.training.logfile import read_metrics
from server.training.runner import JobSpec, ProcessRecord
from tests.server.training.recorder import RecordingSink, make_spec
from tests.waiting import process_running, wait_until

WAITS_FOR_GO = (
    "import json, os, time\n"
    "print('MNNWB_METRIC ' + json.dumps({'step': 1}), flush=True)\n"
    "while not os.path.exists('go'):\n"
    "    time.sleep(0.02)\n"
    "print('MNNWB_METRIC ' + json.dumps({'step': 2}), flush=True)\n"
)




@pytest.fixture
def runners(tmp_path: Path):
    made: list[LocalRunner] = []

    def make(sink: RecordingSink) -> LocalRunner:
        sandbox = Sandbox(True, hidden=(tmp_path / "jobs",))
        made.append(LocalRunner(sink, tmp_path / "jobs", sandbox, stop_grace=1.0))
        return made[-1]

    yield make
    for runner in made:
        runner.close()


def start_and_abandon(runners, tmp_path: Path, script: str) -> tuple[JobSpec, ProcessRecord, int]:
    """Start a job, then drop its runner without stopping the job (a server going down)."""
    first = RecordingSink()
    spec = make_spec(tmp_path, script)
    runner = runners(first)
    runner.submit(spec)
    first.wait_for(lambda: bool(first.points.get(spec.id)))
    runner.close()
    running = first.transitions[spec.id][0]
    assert running.pid is not None
    record = ProcessRecord("running", running.pid, running.pid_started_at)
    return spec, record, running.pid


def test_a_new_runner_reattaches_to_a_live_job_and_sees_it_finish(runners, tmp_path):
    spec, record, pid = start_and_abandon(runners, tmp_path, WAITS_FOR_GO)
    assert psutil.pid_exists(pid)
    second = RecordingSink()
    runner = runners(second)
    runner.resume(spec, record)
    assert runner.poll(spec.id) == "running"
    (spec.project_path / "go").touch()
    done = second.wait_status(spec.id, "succeeded", "failed")
    assert (done.status, done.exit_code) == ("succeeded", 0)
    assert second.points[spec.id] == [{"step": 2}]
    assert second.log_batches[spec.id][0][0] > 0  # tailing resumed where the log stood
    assert [p["step"] for p in _metrics(spec)] == [1, 2]


def test_a_job_that_finished_while_nobody_watched_gets_its_real_outcome(runners, tmp_path):
    spec, record, pid = start_and_abandon(runners, tmp_path, WAITS_FOR_GO)
    (spec.project_path / "go").touch()
    wait_until(lambda: (spec.job_dir / "exit.json").exists())
    second = RecordingSink()
    runners(second).resume(spec, record)
    done = second.wait_status(spec.id, "succeeded", "failed")
    assert (done.status, done.exit_code) == ("succeeded", 0)
    assert [p["step"] for p in _metrics(spec)] == [1, 2]


def test_a_job_whose_process_is_gone_is_marked_failed_with_the_reason(runners, tmp_path):
    spec, record, pid = start_and_abandon(runners, tmp_path, WAITS_FOR_GO)
    os.killpg(pid, 9)  # the whole session dies without writing an exit status
    wait_until(lambda: not _alive(pid))
    sink = RecordingSink()
    runners(sink).resume(spec, record)
    done = sink.wait_status(spec.id, "succeeded", "failed", "stopped")
    assert (done.status, done.reason, done.exit_code) == ("failed", RESTART_LOST, None)


def test_a_reused_pid_is_not_mistaken_for_the_job(runners, tmp_path):
    spec = make_spec(tmp_path, "")
    me = psutil.Process()
    record = ProcessRecord("running", me.pid, me.create_time() - 1000.0)
    sink = RecordingSink()
    runners(sink).resume(spec, record)
    done = sink.wait_status(spec.id, "succeeded", "failed", "stopped")
    assert (done.status, done.reason) == ("failed", RESTART_LOST)
    assert me.is_running()


def test_a_job_that_never_started_is_marked_failed(runners, tmp_path):
    spec = make_spec(tmp_path, "")
    sink = RecordingSink()
    runners(sink).resume(spec, ProcessRecord("queued", None, None))
    assert sink.status(spec.id) == "failed"
    assert "before the job's process started" in str(sink.transitions[spec.id][-1].reason)


def _alive(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    return process_running(pid)


def _metrics(spec: JobSpec) -> list[dict]:
    return read_metrics(spec.job_dir)

