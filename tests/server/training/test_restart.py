"""A server restart mid-job: the new server re-attaches to a live job, or marks a job whose
process is gone as failed with the reason. Nothing stays running."""

import os
from pathlib import Path

from sqlmodel import Session

from server.core.db import make_engine
from server.training.local import RESTART_LOST
from server.training.models import Job
from tests.conftest import make_client
from tests.server.training.test_jobs_api import create_project, read_log, submit, wait_job
from tests.waiting import wait_until

SCRIPT = (
    "import json, os, time\n"
    "print('MNNWB_METRIC ' + json.dumps({'step': 1}), flush=True)\n"
    "while not os.path.exists('go'):\n"
    "    time.sleep(0.02)\n"
    "print('MNNWB_METRIC ' + json.dumps({'step': 2}), flush=True)\n"
)


def start_job_then_stop_the_server(settings) -> tuple[dict, dict]:
    with make_client(settings) as client:
        project = create_project(client)
        Path(project["path"], "job.py").write_text(SCRIPT)
        job = submit(client, project, command="python job.py")
        wait_until(lambda: client.get(f"/api/jobs/{job['id']}/metrics").json()["points"],
                   what="the job's first metric")
    return project, job


def process_of(settings, job_id: str) -> tuple[int, float]:
    engine = make_engine(settings.db_url)
    try:
        with Session(engine) as session:
            row = session.get(Job, job_id)
            assert row is not None and row.pid and row.pid_started_at
            return row.pid, row.pid_started_at
    finally:
        engine.dispose()


def test_the_restarted_server_reattaches_and_sees_the_job_finish(settings):
    project, job = start_job_then_stop_the_server(settings)
    with make_client(settings) as client:
        assert client.get(f"/api/jobs/{job['id']}").json()["status"] == "running"
        Path(project["path"], "go").touch()
        done = wait_job(client, job["id"])
        assert (done["status"], done["exit_code"]) == ("succeeded", 0)
        points = client.get(f"/api/jobs/{job['id']}/metrics").json()["points"]
        assert points == [{"step": 1}, {"step": 2}]
        assert read_log(client, job["id"]).count("MNNWB_METRIC") == 2


def test_a_job_whose_process_died_with_the_server_is_marked_failed(settings):
    _, job = start_job_then_stop_the_server(settings)
    pid, _ = process_of(settings, job["id"])
    os.killpg(pid, 9)
    # The test process is its parent here; the first non-zero answer reaps it.
    wait_until(lambda: os.waitpid(pid, os.WNOHANG)[0] != 0, timeout=10, what="the killed job to end")
    with make_client(settings) as client:
        done = wait_job(client, job["id"], timeout=10)
        assert (done["status"], done["reason"], done["exit_code"]) == ("failed", RESTART_LOST,
                                                                      None)
        assert done["finished_at"]
