"""A ``git commit`` made outside the server (a terminal) refreshes every open tab's Source Control
panel: the watcher turns changes to HEAD, the index and the refs into one ``git/changed`` event,
and never reports ``.git/`` files as project files. A write through the API announces itself;
the watcher does not announce it a second time."""

import asyncio
import json
import threading
import time
from pathlib import Path

import httpx
import websockets.sync.client as ws_client

from device_bridge.tab_events import TabEvent
from server.files.watch import FileWatchers
from tests.fakes.git_remotes import git
from tests.waiting import wait_until


def _events_until(tab, wanted, timeout=5.0):
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            event = json.loads(tab.recv(timeout=max(0.01, deadline - time.monotonic())))
        except TimeoutError:
            break
        seen.append(event)
        if wanted(event):
            return seen
    raise AssertionError(f"no matching event; saw {seen}")


def _arm(tab, root):
    """Write probe files until the watcher (armed asynchronously after the socket opens) reports one."""
    deadline = time.monotonic() + 10
    for n in range(1000):
        (root / f"probe-{n}.txt").write_text("p\n")
        try:
            return _events_until(tab, lambda e: e["channel"] == "files", timeout=0.5)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
    raise AssertionError("the watcher never reported a file")


def _is_outside_git_change(event):
    return (event["channel"], event["type"]) == ("git", "changed") and event["data"]["op"] == "outside"


def test_a_terminal_commit_reaches_the_tab_as_a_git_event(live_server):
    with httpx.Client(base_url=live_server.url, headers=live_server.auth) as api:
        project = api.post("/api/projects", json={"name": "watched", "git": False}).json()
        root = Path(project["path"])
        git("init", "-q", "-b", "main", str(root))
        url = live_server.url.replace("http", "ws") + f"/api/projects/{project['id']}/ws"
        with ws_client.connect(
            url, additional_headers={"Authorization": f"Bearer {live_server.token}"}
        ) as tab:
            assert json.loads(tab.recv(timeout=5))["type"] == "hello"
            (root / "a.txt").write_text("alpha\n")
            # Plain files are file events, never git ones.
            first = _arm(tab, root)
            assert not any(e["channel"] == "git" for e in first)
            assert all(not c["path"].startswith(".git") for c in first[-1]["data"]["changes"])
            git("add", "a.txt", cwd=root)
            assert _events_until(tab, _is_outside_git_change)[-1]["data"]["paths"] == ["index"]
            git("commit", "-q", "-m", "from a terminal", cwd=root)
            seen = _events_until(tab, _is_outside_git_change)
            assert all(
                not c["path"].startswith(".git")
                for e in seen
                if e["channel"] == "files"
                for c in e["data"]["changes"]
            )
            git("checkout", "-q", "-b", "other", cwd=root)
            _events_until(tab, _is_outside_git_change)


def test_an_api_commit_is_not_announced_again_as_an_outside_change(live_server):
    with httpx.Client(base_url=live_server.url, headers=live_server.auth) as api:
        project = api.post("/api/projects", json={"name": "echo", "git": False}).json()
        root, base = Path(project["path"]), f"/api/projects/{project['id']}/git"
        git("init", "-q", "-b", "main", str(root))
        git("config", "user.name", "Ada", cwd=root)
        git("config", "user.email", "ada@example.com", cwd=root)
        url = live_server.url.replace("http", "ws") + f"/api/projects/{project['id']}/ws"
        with ws_client.connect(
            url, additional_headers={"Authorization": f"Bearer {live_server.token}"}
        ) as tab:
            assert json.loads(tab.recv(timeout=5))["type"] == "hello"
            (root / "a.txt").write_text("alpha\n")
            _arm(tab, root)
            assert api.post(f"{base}/stage", json={"paths": ["a.txt"]}).status_code == 200
            assert api.post(f"{base}/commit", json={"message": "through the API"}).status_code == 201
            seen = _events_until(tab, lambda e: e["channel"] == "git" and e["data"]["op"] == "commit")
            # Batches arrive in order: once this later file's event is in, the commit's echo is too.
            (root / "marker.txt").write_text("m\n")
            seen += _events_until(
                tab, lambda e: any(c["path"] == "marker.txt" for c in e["data"].get("changes", []))
            )
            git("branch", "from-a-terminal", cwd=root)
            seen += _events_until(tab, _is_outside_git_change)
        outside = [e["data"]["paths"] for e in seen if _is_outside_git_change(e)]
        assert outside == [["refs/heads/from-a-terminal"]]


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, dict]] = []

    def emit(self, project_id: str, event: TabEvent) -> int:
        self.events.append((event.CHANNEL, event.TYPE, event.payload()))
        return len(self.events)

    def saw_file(self, name: str) -> bool:
        return any(c["path"] == name for ch, _, d in self.events if ch == "files" for c in d["changes"])


def test_git_changes_seen_while_an_api_write_runs_are_that_writes_own(tmp_path: Path) -> None:
    """An API write runs off the event loop; a batch the watcher handles before it ends (the
    index written, the ref not yet) must not be announced as an outside change."""
    root = tmp_path / "repo"
    git("init", "-q", "-b", "main", str(root))
    git("-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-q", "--allow-empty",
        "-m", "Start", cwd=root)
    (root / "a.txt").write_text("alpha\n")
    hub = _Recorder()
    watchers = FileWatchers(hub)  # type: ignore[arg-type]
    loop = asyncio.new_event_loop()
    running = threading.Thread(target=loop.run_forever, daemon=True)
    running.start()
    loop.call_soon_threadsafe(watchers.acquire, "p", str(root))
    try:
        def armed() -> bool:  # the watcher arms asynchronously: write until it reports a file
            (root / f"probe-{len(list(root.glob('probe-*')))}.txt").write_text("p\n")
            return bool(hub.events)

        wait_until(armed, interval=0.5, what="the watcher to report a file")
        with watchers.git_write("p", str(root)):
            git("add", "a.txt", cwd=root)
            (root / "marker.txt").write_text("m\n")
            # Batches are handled in order: once the marker is in, so is the index change.
            wait_until(lambda: hub.saw_file("marker.txt"), what="the batch after the index change")
        git("branch", "from-a-terminal", cwd=root)
        wait_until(lambda: any(ch == "git" for ch, _, _ in hub.events), what="the outside change")
    finally:
        asyncio.run_coroutine_threadsafe(watchers.close(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        running.join(timeout=30)
        loop.close()
    assert [d["paths"] for ch, _, d in hub.events if ch == "git"] == [["refs/heads/from-a-terminal"]]
