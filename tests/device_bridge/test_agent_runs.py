"""Deploy, run, stdin, stop, perf and two sessions — against a real agent process."""

import itertools
import os
import re
import signal
import statistics
from pathlib import Path

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.links import Identity
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.waiting import process_running, wait_until


def attach(server: HubServer, project: str, device_id: str = "dev-a") -> str:
    return server.call(server.hub.open_session(project, device_id)).sid


def run(server: HubServer, project: str, sid: str, argv: list[str], **extra) -> None:
    server.call(server.hub.send(project, p.RunStart(sid=sid, argv=argv, **extra)))


def exit_of(server: HubServer, sid: str, timeout: float = 20.0) -> dict:
    return server.recorder.wait(lambda e: e.type == "run.exit" and e.data["sid"] == sid, timeout).data


def test_pairing_code_is_swapped_for_a_stored_device_token(agent: AgentProcess) -> None:
    state = (agent.home / "device.json").read_text()
    assert "device-token-dev-a" in state
    assert "code-a" not in state


def test_deploy_sends_only_changed_files_and_applies_deletions(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    for i in range(5):
        (project / "pkg" / f"m{i}.py").write_text(f"VALUE = {i}\n")
    (project / "empty.txt").write_text("")
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[core]\n")
    sid = attach(hub_server, "p-sync")

    first = hub_server.call(deploy(hub_server.hub, "p-sync", sid, project))
    assert sorted(first.sent) == [f"pkg/m{i}.py" for i in range(5)]
    assert first.failed == []

    (project / "pkg" / "m3.py").write_text("VALUE = 33\n")
    (project / "pkg" / "m4.py").unlink()
    second = hub_server.call(deploy(hub_server.hub, "p-sync", sid, project))
    assert second.sent == ["pkg/m3.py"]
    assert second.deleted == ["pkg/m4.py"]

    files = agent.home / "sessions" / "p-sync" / "files"
    assert (files / "pkg" / "m3.py").read_text() == "VALUE = 33\n"
    assert not (files / "pkg" / "m4.py").exists()
    assert not (files / ".git").exists()
    assert (files / "empty.txt").read_bytes() == b""
    done = hub_server.recorder.wait(lambda e: e.type == "sync.done" and e.data["sid"] == sid)
    assert done.project == "p-sync"


def test_run_streams_output_stdin_and_exit_code(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(
        "import os, sys\n"
        "print('hello from', os.environ['GREETING'], sys.argv[1:])\n"
        "line = sys.stdin.readline()\n"
        "print('echo:', line.strip())\n"
        "print('to stderr', file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    sid = attach(hub_server, "p-run")
    hub_server.call(deploy(hub_server.hub, "p-run", sid, project))
    run(hub_server, "p-run", sid, ["main.py", "--fast"], env={"GREETING": "device"})
    wait_until(lambda: "hello from device ['--fast']" in hub_server.recorder.output(sid))
    hub_server.call(hub_server.hub.send("p-run", p.RunStdin(sid=sid, text="ping\n")))
    assert exit_of(hub_server, sid)["code"] == 3
    out = hub_server.recorder.output(sid)
    assert "echo: ping" in out
    streams = {
        e.data["stream"]
        for e in hub_server.recorder.select(lambda e: e.type == "log" and e.data["sid"] == sid)
    }
    assert streams == {"stdout", "stderr"}


def test_stop_kills_the_process_group_and_perf_streams(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "spin.py").write_text(
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('child', child.pid, flush=True)\n"
        "end = time.time() + 60\n"
        "while time.time() < end:\n"
        "    sum(range(10000))\n"
    )
    sid = attach(hub_server, "p-stop")
    hub_server.call(deploy(hub_server.hub, "p-stop", sid, project))
    run(hub_server, "p-stop", sid, ["spin.py"])
    # The whole line, newline included: a log event may end inside the pid.
    found = wait_until(lambda: re.search(r"^child (\d+)\n", hub_server.recorder.output(sid), re.M),
                       what="the child's pid line")
    child = int(found.group(1))

    def samples() -> list[dict]:
        events = hub_server.recorder.select(lambda e: e.type == "perf" and e.data["sid"] == sid)
        return [sample for e in events for sample in e.data["samples"]]

    perf = wait_until(lambda: len(samples()) >= 8 and samples(), what="perf samples")
    times = [sample["t"] for sample in perf]
    # The agent samples at 10 Hz; a loaded machine may delay one sample, not the typical one.
    assert statistics.median(b - a for a, b in itertools.pairwise(times)) < 0.2
    assert max(sample["threads"] for sample in perf) >= 2
    assert max(sample["rss"] for sample in perf) > 1_000_000
    hub_server.call(hub_server.hub.send("p-stop", p.RunStop(sid=sid)))
    assert exit_of(hub_server, sid)["signal"] == signal.SIGTERM
    wait_until(lambda: not process_running(child), what="the child to die")


def test_two_sessions_on_one_device_run_at_once(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sids = {}
    for name in ("p-one", "p-two"):
        project = tmp_path / name
        project.mkdir()
        (project / "main.py").write_text(
            "import os, time\n"
            f"open('started', 'w').close()\n"
            "while not os.path.exists('go'):\n    time.sleep(0.02)\n"
            f"print('I am {name}', os.getcwd())\n"
        )
        sids[name] = attach(hub_server, name)
        hub_server.call(deploy(hub_server.hub, name, sids[name], project))
        run(hub_server, name, sids[name], ["main.py"])
    folders = {name: agent.home / "sessions" / name / "files" for name in sids}
    wait_until(
        lambda: all((f / "started").exists() for f in folders.values()),
        what="both programs to be running at once",
    )
    for folder in folders.values():
        (folder / "go").touch()
    for name, sid in sids.items():
        assert exit_of(hub_server, sid)["code"] == 0
        assert f"I am {name} {os.path.realpath(folders[name])}" in hub_server.recorder.output(sid)
    assert len({e.project for e in hub_server.recorder.select(lambda e: e.type == "log")}) >= 2


def test_one_project_on_two_devices_and_sigterm_ends_the_agents_programs(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    hub_server.book.codes["code-b"] = Identity("dev-b", "second")
    other = AgentProcess(hub_server.url, tmp_path / "home-b", "code-b", "second")
    try:
        wait_until(lambda: "connected to" in other.log(), what="the second agent")
        project = tmp_path / "proj"
        project.mkdir()
        (project / "main.py").write_text(
            "import sys, time\nprint('running', flush=True)\nif sys.argv[1] == 'wait':\n    time.sleep(60)\n"
        )
        sids = {did: attach(hub_server, "p-multi", did) for did in ("dev-a", "dev-b")}
        assert len(set(sids.values())) == 2
        for did, sid in sids.items():
            hub_server.call(deploy(hub_server.hub, "p-multi", sid, project))
            run(hub_server, "p-multi", sid, ["main.py", "wait" if did == "dev-b" else "go"])
        assert exit_of(hub_server, sids["dev-a"])["code"] == 0
        wait_until(lambda: "running" in hub_server.recorder.output(sids["dev-b"]))
        started = hub_server.recorder.wait(
            lambda e: e.type == "run.started" and e.data["sid"] == sids["dev-b"]
        )
        other.proc.terminate()
        assert other.proc.wait(15) == 0
        assert not process_running(started.data["pid"])
        hub_server.recorder.wait(
            lambda e: (
                e.type == "session.state" and e.data["sid"] == sids["dev-b"] and e.data["state"] == "lost"
            )
        )
    finally:
        other.kill()
