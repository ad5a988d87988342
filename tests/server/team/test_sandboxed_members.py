"""Team mode: the code a member runs reaches only that member's project (docs/security.md, "The
sandbox"). Member A (``owner``) runs the same probe as a job, as a test run, in a terminal, and
looks at what the language server's interpreter can see; member B (``outsider``) has a project of
its own. Then the same server with the sandbox unavailable runs nothing, until an admin turns it
off."""

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import httpx
import pytest

from server.sandbox import service as sandbox_service
from tests.server.sandbox.test_sandbox import PROBE, assert_confined
from tests.server.team.conftest import LiveTeam, start_live_team, team_settings
from tests.server.team.sockets import greeted
from tests.waiting import wait_until

FINISHED = ("succeeded", "failed", "stopped")


def _project(team: LiveTeam, name: str, owner: str) -> tuple[str, Path]:
    pid = team.new_project(name, owner=owner)
    project = httpx.get(f"{team.url}/api/projects/{pid}", headers=team.auth(owner)).json()
    return pid, Path(project["path"])


def _probe_argv(team: LiveTeam, other: Path, out: str) -> list[str]:
    data = team.live.settings.data_dir
    return [sys.executable, "probe.py", str(data), str(other), str(team.live.settings.port),
            str(os.getpid()), out]


def _run_job(team: LiveTeam, pid: str, command: str) -> dict:
    made = httpx.post(f"{team.url}/api/projects/{pid}/jobs", json={"backend": "local",
                      "command": command}, headers=team.auth("owner"))
    assert made.status_code == 201, made.text
    job_id = made.json()["id"]
    return wait_until(lambda: (job := httpx.get(f"{team.url}/api/jobs/{job_id}",
                                                headers=team.auth("owner")).json())["status"]
                      in FINISHED and job, 120, "the job to end")


def _pylsp_of(folder: Path) -> int:
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if argv[1:3] == [b"-m", b"pylsp"] and cwd == str(folder.resolve()):
            return int(entry.name)
    return 0


@pytest.fixture
def members(tmp_path: Path):
    """A live team server; A's project holds the probe, B's project holds B's code."""
    for team in start_live_team(team_settings(tmp_path / "data", team_terminal=True)):
        pid, mine = _project(team, "a-project", "owner")
        _, theirs = _project(team, "b-project", "outsider")
        (theirs / "train.py").write_text("# B's code\n")
        assert not (theirs / "planted.txt").exists()
        shutil.copy(PROBE, mine / "probe.py")
        yield team, pid, mine, theirs


def test_a_members_job_test_run_terminal_and_language_server_reach_only_their_project(members):
    team, pid, mine, theirs = members

    # a local job
    job = _run_job(team, pid, "python " + shlex.join(_probe_argv(team, theirs, "job.json")[1:]))
    assert job["status"] == "succeeded", job
    assert_confined(json.loads((mine / "job.json").read_text()))

    # a test run: pytest, in a job, running the probe from a test
    (mine / "test_probe.py").write_text(
        "import subprocess, sys\n"
        f"ARGV = {_probe_argv(team, theirs, 'tests.json')[1:]!r}\n"
        "def test_probe():\n"
        "    subprocess.run([sys.executable, *ARGV], check=True)\n")
    job = _run_job(team, pid, "python -m pytest -q -p no:cacheprovider test_probe.py")
    assert job["status"] == "succeeded", job
    assert_confined(json.loads((mine / "tests.json").read_text()))

    # a terminal command
    terminal = team.socket(f"/api/projects/{pid}/terminal", "owner")
    assert greeted(terminal)["type"] == "hello"
    command = shlex.join(_probe_argv(team, theirs, "terminal.json"))
    terminal.send(json.dumps({"type": "input", "data": command + "\n"}))
    wait_until(lambda: (mine / "terminal.json").exists() and (mine / "terminal.json").read_text(),
               60, "the terminal's probe to finish")
    assert_confined(json.loads((mine / "terminal.json").read_text()))

    # the language server: what its interpreter sees, read through its own root
    lsp = team.socket(f"/api/projects/{pid}/lsp", "owner")
    lsp.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": mine.as_uri(), "capabilities": {}}}))
    while json.loads(lsp.recv(timeout=60)).get("id") != 1:
        pass
    server = wait_until(lambda: _pylsp_of(mine), what="the language server's process")
    root = Path(f"/proc/{server}/root")
    data = team.live.settings.data_dir
    assert (root / mine.relative_to("/") / "probe.py").is_file()
    for hidden in (theirs / "train.py", data / "secrets.key", data / "workbench.db"):
        assert not (root / hidden.relative_to("/")).exists(), hidden
    assert os.stat(f"/proc/{server}/ns/pid").st_ino != os.stat("/proc/self/ns/pid").st_ino
    assert str(os.getpid()) not in os.listdir(root / "proc")

    # nothing of the probes reached B's project
    assert not (theirs / "planted.txt").exists()
    assert (theirs / "train.py").read_text() == "# B's code\n"


def test_an_unavailable_sandbox_runs_nothing_until_an_admin_turns_it_off(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))  # bwrap cannot be found
    sandbox_service.probe.cache_clear()
    try:
        for team in start_live_team(team_settings(tmp_path / "data")):
            pid = team.new_project("a-project")
            state = httpx.get(f"{team.url}/api/sandbox", headers=team.auth("owner")).json()
            assert state["state"] == "unavailable" and "bwrap" in state["reason"]
            job = httpx.post(f"{team.url}/api/projects/{pid}/jobs", json={
                "backend": "local", "command": "python -c 1"}, headers=team.auth("owner"))
            assert (job.status_code, job.json()["code"]) == (503, "sandbox_unavailable")
            project = httpx.get(f"{team.url}/api/projects/{pid}", headers=team.auth("owner"))
            Path(project.json()["path"], "m.mnn").write_bytes(b"not run")
            tool = httpx.post(f"{team.url}/api/projects/{pid}/tools/inspect",
                              json={"model": "m.mnn"}, headers=team.auth("owner"))
            assert (tool.status_code, tool.json()["code"]) == (503, "sandbox_unavailable")
        off = team_settings(tmp_path / "data-off", sandbox="off")
        for team in start_live_team(off):
            pid = team.new_project("a-project")
            state = httpx.get(f"{team.url}/api/sandbox", headers=team.auth("owner")).json()
            assert state["state"] == "off"
    finally:
        sandbox_service.probe.cache_clear()
