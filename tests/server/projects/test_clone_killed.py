"""A real server killed (SIGKILL) in the middle of a clone: no git process it started outlives it,
and the next start leaves no half-cloned folder, no project row and no scratch folder."""

import os
import signal
import tempfile
import threading
from pathlib import Path

import httpx
import psutil

from bench.serverproc import start_server, stop_server
from tests.fakes.slow_remote import big_repo, slow_git_daemon
from tests.waiting import SCALE, wait_until


def clone_processes(server: psutil.Process) -> list[psutil.Process]:
    """The server's descendants that run git (the tether that leads them included)."""
    found = []
    for child in server.children(recursive=True):
        try:
            if any("git" in arg for arg in child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def alive(process: psutil.Process) -> bool:
    """Still running: not ended, not a zombie, and not a new process that got its pid."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def receiving(server: psutil.Process) -> list[psutil.Process]:
    """The clone's processes once ``index-pack`` runs (the pack is arriving): git's own child,
    the one a kill of the server alone must still reach."""
    found = clone_processes(server)
    return found if any("index-pack" in p.cmdline() for p in found if alive(p)) else []


def scratch_folders(pid: int) -> list[str]:
    return [name for name in os.listdir(tempfile.gettempdir()) if name.startswith(f"mnnwb-{pid}-")]


def test_a_server_killed_mid_clone_leaves_no_git_running_and_nothing_after_the_restart(tmp_path):
    base = tmp_path / "srv"
    base.mkdir()
    big_repo(base / "big.git")
    data = tmp_path / "data"
    # The remote hangs after 256 KiB of the 3.2 MB pack: git then waits without writing a word,
    # so nothing but the server's death can end it (a git writing progress to a dead server's
    # pipe would die of SIGPIPE on its own).
    stalled = threading.Event()
    with slow_git_daemon(base, 64 * 1024, stall_after=256 * 1024, stalled=stalled) as remote:
        proc, url, token = start_server(data, timeout=120 * SCALE)
        try:
            headers = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
            with httpx.Client(base_url=url, headers=headers, timeout=60) as api:
                made = api.post("/api/projects", json={"name": "slow", "git_url": remote + "big.git"})
            assert made.status_code == 202, made.text
            server = psutil.Process(proc.pid)
            running = wait_until(lambda: receiving(server), timeout=60, what="the clone to receive objects")
            assert stalled.wait(60 * SCALE), "the remote should have stopped sending"
            scratch = scratch_folders(proc.pid)
            assert scratch, "the clone's template folder should exist while it runs"
            os.kill(proc.pid, signal.SIGKILL)  # the server alone, as the OOM killer would
            proc.wait()
            assert proc.stdout is not None
            proc.stdout.close()
        finally:
            if proc.poll() is None:
                stop_server(proc)
        wait_until(lambda: not [p for p in running if alive(p)],
                   what=f"the clone's processes to end: {[p.pid for p in running if alive(p)]}")
    folder, killed = Path(made.json()["path"]), proc.pid
    assert (folder / ".git").is_dir(), "the kill was meant to land in the middle of the clone"
    assert scratch_folders(killed) == scratch

    proc, url, token = start_server(data, timeout=120 * SCALE)
    try:
        assert not folder.exists()
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as api:
            assert made.json()["id"] not in {p["id"] for p in api.get("/api/projects").json()}
        wait_until(lambda: not scratch_folders(killed), what="the start-up sweep of the temp dir")
    finally:
        stop_server(proc)
