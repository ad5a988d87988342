"""A real server killed (SIGKILL) in the middle of a large save leaves a temp file; Git status
never lists it, and the next start deletes it."""

import os
import re
import threading
from pathlib import Path

import httpx

from bench.serverproc import kill_server, start_server, stop_server
from server.core.fsutil import is_temp_name
from server.gitflow import service as git
from tests.waiting import SCALE, wait_until

BIG = "x" * (32 * 1024 * 1024)


def temp_files(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if is_temp_name(name)]


def keep_saving(url: str, token: str, pid: str, stop: threading.Event) -> None:
    """Large saves one after another until the server dies under them."""
    headers = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as api:
        while not stop.is_set():
            try:
                api.put(f"/api/projects/{pid}/files/content", params={"path": "big.txt"},
                        json={"content": BIG})
            except httpx.HTTPError:
                return


def test_a_save_killed_midway_is_invisible_to_git_and_swept_at_start(tmp_path):
    data = tmp_path / "data"
    proc, url, token = start_server(data, timeout=120 * SCALE)
    headers = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
    stop = threading.Event()
    try:
        with httpx.Client(base_url=url, headers=headers, timeout=60) as api:
            body = {"name": "demo", "template": "empty", "git": False}
            project = api.post("/api/projects", json=body).json()
            assert api.post(f"/api/projects/{project['id']}/git/init").status_code == 201
        folder = Path(project["path"])
        saver = threading.Thread(target=keep_saving, args=(url, token, project["id"], stop))
        saver.start()
        wait_until(lambda: temp_files(folder), timeout=60, what="a save's temp file", interval=0.002)
        kill_server(proc)
    finally:
        stop.set()
        if proc.poll() is None:
            stop_server(proc)
    saver.join(timeout=60)
    left = temp_files(folder)
    assert left, "the kill was meant to land during a save"
    assert all(re.fullmatch(r"\.big\.txt\.[a-z0-9_]{8}\.tmp", name) for name in left)
    untracked = [change.path for change in git.status(folder).untracked]
    assert not [path for path in untracked if is_temp_name(path)], untracked

    proc, url, token = start_server(data, timeout=120 * SCALE)
    try:
        wait_until(lambda: not temp_files(folder), what="the start-up sweep")
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as api:
            status = api.get(f"/api/projects/{project['id']}/git/status").json()
        assert not [c for c in status["untracked"] if c["path"].endswith(".tmp")]
    finally:
        stop_server(proc)
