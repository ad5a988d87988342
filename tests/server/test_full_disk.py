"""A full disk is a 507 ``insufficient_storage`` with the old content intact and nothing left
half-written: saves, uploads, Git writes (``git init`` included), tool runs and jobs.

The data dir lives on a real, small tmpfs that the test fills to the last byte.
"""

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from server.core.config import REPO_ROOT, Settings
from server.core.db import database_full, make_engine, until_stored
from server.gitflow import service as git
from tests.conftest import make_client
from tests.fakes.models import conv_net, stacked_net
from tests.full_disk import can_mount, filled, small_disk
from tests.plugin.tools import wait_for_run
from tests.server.training.test_jobs_api import read_log, wait_job
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(not can_mount(), reason="mounting a small tmpfs needs root")
AUTHOR = "Ada <ada@example.com>"


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with small_disk(tmp_path / "disk", size="16m") as mounted:
        yield mounted


@pytest.fixture
def api(disk: Path) -> Iterator[TestClient]:
    settings = Settings(data_dir=disk / "data", webui_dist=REPO_ROOT / "webui" / "dist",
                        watch_files=False)
    with make_client(settings) as client:
        yield client


@pytest.fixture
def project(api: TestClient) -> dict:
    created = api.post("/api/projects", json={"name": "demo", "template": "empty", "git": False})
    assert created.status_code == 201, created.text
    return created.json()


def assert_full(response) -> None:
    assert response.status_code == 507, response.text
    assert response.json()["code"] == "insufficient_storage"


def test_a_save_keeps_the_old_content_and_leaves_no_temp_file(api, disk, project):
    url = f"/api/projects/{project['id']}/files/content"
    before = api.get(url, params={"path": "README.md"}).json()
    folder = Path(project["path"])
    with filled(disk):
        assert_full(api.put(url, params={"path": "README.md"},
                            json={"content": "new " * 10000, "etag": before["etag"]}))
        assert_full(api.put(url, params={"path": "brand-new.txt"}, json={"content": "x" * 10000}))
    assert api.get(url, params={"path": "README.md"}).json() == before
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "main.py"]
    assert api.put(url, params={"path": "README.md"},
                   json={"content": "after", "etag": before["etag"]}).status_code == 200


def test_an_upload_leaves_nothing_behind(api, disk, project):
    base = f"/api/projects/{project['id']}/files"
    with filled(disk):
        assert_full(api.post(f"{base}/upload", files={"files": ("up.bin", b"x" * 200_000)}))
    names = {e["name"] for e in api.get(base, params={"all": True}).json()}
    assert "up.bin" not in names and not any(n.endswith(".tmp") for n in names)


def test_git_init_on_a_full_disk_leaves_no_repository_to_repair(api, disk, project):
    base = f"/api/projects/{project['id']}/git"
    with filled(disk):
        assert_full(api.post(f"{base}/init"))
    assert not (Path(project["path"]) / ".git").exists()
    assert api.post(f"{base}/init").status_code == 201


def test_a_commit_on_a_full_disk_moves_nothing_and_locks_nothing(api, disk, project):
    folder = Path(project["path"])
    git.init(folder)
    git.stage(folder, ["README.md"])
    first = git.commit(folder, "one", author=AUTHOR)
    (folder / "main.py").write_text("print('two')\n" * 2000)
    git.stage(folder, ["main.py"])
    base = f"/api/projects/{project['id']}/git"
    with filled(disk):
        assert_full(api.post(f"{base}/commit", json={"message": "two", "author": AUTHOR}))
        assert_full(api.post(f"{base}/branches", json={"name": "feature"}))
    assert [c["sha"] for c in api.get(f"{base}/log").json()] == [first.sha]
    assert not list((folder / ".git").rglob("*.lock"))
    assert api.post(f"{base}/commit", json={"message": "two", "author": AUTHOR}).status_code == 201


def test_tool_runs_and_jobs_are_refused_not_crashed(api, disk, project):
    base = f"/api/projects/{project['id']}"
    conv_net(Path(project["path"]) / "m.onnx", size=8, width=2)
    with filled(disk):
        assert_full(api.post(f"{base}/tools/inspect", json={"model": "m.onnx"}))
        assert_full(api.post(f"{base}/jobs", json={"command": "python main.py"}))
    assert api.get(f"{base}/tool-runs").json() == []
    assert api.get(f"{base}/jobs").json() == []


def test_a_tool_run_that_fills_the_disk_says_so_and_keeps_the_old_output(api, disk, project):
    """The disk has room to start the run but not for its output: the converter just stops, and
    the run must say the disk is full rather than pass on the converter's silence."""
    base = f"/api/projects/{project['id']}"
    folder = Path(project["path"])
    stacked_net(folder / "m.onnx", 16, [64, 128, 256])  # 1.5 MB of weights
    (folder / "m.mnn").write_bytes(b"the model that was there")
    with filled(disk, leave=512 * 1024):
        # Replacing the model that is there (without ``overwrite`` the run would pick m-2.mnn).
        started = api.post(f"{base}/tools/convert",
                           json={"model": "m.onnx", "output": "m.mnn", "overwrite": True})
        assert started.status_code == 202, started.text
        run = wait_for_run(api, started.json()["id"])
    assert run["status"] == "failed", run
    assert run["error"].startswith("the disk is full: m.mnn was not written"), run["error"]
    assert (folder / "m.mnn").read_bytes() == b"the model that was there"
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".m.mnn")) == []


JOB = """
import pathlib, sys, time
signals = pathlib.Path(sys.argv[1])
def wait(name):
    while not (signals / name).exists():
        time.sleep(0.02)
print("before the disk filled", flush=True)
(signals / "started").touch()
wait("full")
for n in range(3000):
    print(f"line {n} " + "x" * 60, flush=True)
(signals / "printed").touch()
wait("room")
print("after the disk had room again", flush=True)
"""


def test_a_job_s_output_lost_to_a_full_disk_is_marked_and_counted(api, disk, project):
    base = f"/api/projects/{project['id']}"
    (Path(project["path"]) / "job.py").write_text(JOB)
    # In the project: the job runs in the sandbox, which sees nothing else of this machine.
    # Empty files need no room, even on the full disk.
    signals = Path(project["path"]) / "signals"
    signals.mkdir()
    job = api.post(f"{base}/jobs", json={"command": f"python job.py {signals}"}).json()
    wait_until(lambda: (signals / "started").exists(), what="the job to start printing")
    with filled(disk):
        (signals / "full").touch()
        wait_until(lambda: (signals / "printed").exists(), what="the job to print on a full disk")
    (signals / "room").touch()
    done = wait_job(api, job["id"])
    assert done["status"] == "succeeded", done
    lost = int(re.search(r"the disk was full: (\d+) bytes of output are missing", done["reason"])[1])
    output = "".join(f"line {n} " + "x" * 60 + "\n" for n in range(3000))
    assert 0 < lost <= len(output)
    # What reached the log is everything up to the moment the disk was full, the mark, and
    # everything after room came back.
    assert read_log(api, job["id"]) == (
        "before the disk filled\n" + output[: len(output) - lost]
        + f"\n[mnnwb] the disk was full: {lost} bytes of output were not saved here\n"
        + "after the disk had room again\n")



def test_a_write_that_must_not_be_lost_lands_once_the_disk_has_room(disk, caplog):
    """The end of a tool run or a job has no caller to answer with a 507: on a full disk it waits
    for room (``until_stored``) instead of leaving the run 'running' for ever."""
    engine = make_engine(f"sqlite:///{disk / 'db.sqlite'}")
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE ends (payload BLOB)"))
    row = {"payload": b"x" * 2_000_000}  # more than any room the database file has kept

    def write() -> int:
        with engine.begin() as connection:
            connection.execute(text("INSERT INTO ends VALUES (:payload)"), row)
        return 1

    with ThreadPoolExecutor(1) as pool:
        with filled(disk):
            with pytest.raises(DBAPIError) as refused:
                write()
            assert database_full(refused.value)
            stored = pool.submit(until_stored, write, "a test row")
            wait_until(lambda: "a test row waits for room" in caplog.text, what="the write to wait for room")
        assert stored.result(timeout=30) == 1
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM ends")).scalar() == 1
    engine.dispose()
