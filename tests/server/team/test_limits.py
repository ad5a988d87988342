"""Jobs and tool runs are capped per user, not per project or server: a member at the cap is
refused with a named code, and another member of the same project is not locked out."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.models import conv_net
from tests.server.team.conftest import Team, start_team, team_settings
from tests.waiting import wait_until

LONG_JOB = "python -c \"import time; print('ready', flush=True); time.sleep(120)\""
ACTIVE = {"queued", "running"}


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[Team]:
    settings = team_settings(tmp_path / "data", jobs_per_user=1, tool_runs_per_user=1)
    yield from start_team(settings)


def _job(team: Team, pid: str, who: str):
    return team.client.post(f"/api/projects/{pid}/jobs", json={"backend": "local", "command": LONG_JOB},
                            headers=team.auth(who))


def _job_status(team: Team, job_id: str) -> str:
    return str(team.client.get(f"/api/jobs/{job_id}", headers=team.auth("owner")).json()["status"])


def test_a_member_at_the_job_cap_does_not_block_another(capped: Team):
    pid = capped.new_project()
    first = _job(capped, pid, "editor")
    assert first.status_code == 201, first.text
    refused = _job(capped, pid, "editor")
    assert (refused.status_code, refused.json()["code"], refused.json()["limit"]) == (409, "job_limit", 1)
    assert refused.json()["detail"] == "active jobs are limited to 1 per user; you have 1 going"
    other = _job(capped, pid, "owner")
    assert other.status_code == 201, other.text
    for job in (first.json(), other.json()):
        stopped = capped.client.post(f"/api/jobs/{job['id']}/stop", headers=capped.auth("owner"))
        assert stopped.status_code == 200
    wait_until(lambda: _job_status(capped, first.json()["id"]) not in ACTIVE, what="the job to stop")
    again = _job(capped, pid, "editor")
    assert again.status_code == 201, again.text
    capped.client.post(f"/api/jobs/{again.json()['id']}/stop", headers=capped.auth("owner"))


def _tool(team: Team, pid: str, who: str, tool: str, body: dict):
    return team.client.post(f"/api/projects/{pid}/tools/{tool}", json=body, headers=team.auth(who))


def _finished(team: Team, run_id: str) -> dict | None:
    run = team.client.get(f"/api/tool-runs/{run_id}", headers=team.auth("owner")).json()
    return None if run["status"] in ACTIVE else dict(run)


def test_a_member_at_the_tool_run_cap_does_not_block_another(capped: Team):
    pid = capped.new_project()
    folder = Path(capped.client.get(f"/api/projects/{pid}", headers=capped.auth("owner")).json()["path"])
    conv_net(folder / "conv.onnx")
    converted = _tool(capped, pid, "editor", "convert", {"model": "conv.onnx"})
    assert converted.status_code == 202, converted.text
    done = wait_until(lambda: _finished(capped, converted.json()["id"]), 120, "the conversion")
    assert done["status"] == "succeeded", done
    long = _tool(capped, pid, "editor", "benchmark", {"model": "conv.mnn", "loops": 100000, "warmup": 10})
    assert long.status_code == 202, long.text
    refused = _tool(capped, pid, "editor", "inspect", {"model": "conv.onnx"})
    assert (refused.status_code, refused.json()["code"], refused.json()["limit"]) == (
        409, "tool_run_limit", 1)
    other = _tool(capped, pid, "owner", "inspect", {"model": "conv.onnx"})
    assert other.status_code == 202, other.text
    cancel = capped.client.post(f"/api/tool-runs/{long.json()['id']}/cancel", headers=capped.auth("editor"))
    assert cancel.status_code == 200
    wait_until(lambda: _finished(capped, long.json()["id"]), what="the benchmark to be cancelled")
    again = _tool(capped, pid, "editor", "inspect", {"model": "conv.onnx"})
    assert again.status_code == 202, again.text
    for run in (other.json(), again.json()):
        wait_until(lambda run=run: _finished(capped, run["id"]), 120, "the inspections")
