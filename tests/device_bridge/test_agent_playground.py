"""A playground project deployed to a real agent process and run there (``python -m
device_bridge.playground.run``, importable from the agent itself) makes the kit calls it makes
here — the camera app of tests/fakes/playground.py and each playground template — and the
agent's Stop runs its close callback."""

import json
from pathlib import Path

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.playground.cameras import cameras
from device_bridge.playground.kit import MARK
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_agent_runs import attach, exit_of
from tests.device_bridge.test_playground import kit_calls
from tests.fakes import playground_templates as template_projects
from tests.fakes.playground import camera_project
from tests.waiting import wait_until


def _calls(server: HubServer, sid: str) -> list[dict]:
    text = "".join(e.data["text"] for e in server.recorder.select(
        lambda e: e.type == "log" and e.data["sid"] == sid and e.data["stream"] == "stdout"))
    return [json.loads(line[len(MARK):]) for line in text.splitlines() if line.startswith(MARK)]


def test_a_playground_on_the_device_makes_the_calls_it_makes_here(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    project = camera_project(tmp_path / "colours")
    sid = attach(hub_server, "p-play")
    assert hub_server.call(deploy(hub_server.hub, "p-play", sid, project)).failed == []
    argv = ["-m", "device_bridge.playground.run", ".", "--frames", "3"]
    hub_server.call(hub_server.hub.send("p-play", p.RunStart(sid=sid, argv=argv)))
    assert exit_of(hub_server, sid, timeout=120)["code"] == 0, hub_server.recorder.output(sid)
    # The run's last output may reach the server just after its exit.
    wait_until(lambda: _calls(hub_server, sid)[-1:] == [{"call": "closed", "frame": None}],
               what="the playground's last kit call from the device")
    there = _calls(hub_server, sid)
    _, here = kit_calls(project, "--frames", "3")
    assert [c["call"] for c in there] == [c["call"] for c in here]
    labels = [c["text"] for c in there if c["call"] == "setLabel"]
    assert labels == [c["text"] for c in here if c["call"] == "setLabel"]
    assert [text.split()[0] for text in labels] == ["photo:", "red", "green", "blue", "bye"]
    # workPath is the deployed copy on the device
    start = next(c for c in there if c["call"] == "start")
    assert start["app"]["entry_file"] == "main.py"


def test_stopping_a_playground_on_the_device_runs_its_close_callback(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    project = camera_project(tmp_path / "forever")
    (project / "main.py").write_text(
        "import time\nimport MNNCV\nkit = MNNCV.Kit()\n"
        "kit.setCloseCallback(lambda: kit.setLabel(0, 'closed on the device'))\n"
        "while True:\n    time.sleep(0.05)\n")
    sid = attach(hub_server, "p-play-stop")
    assert hub_server.call(deploy(hub_server.hub, "p-play-stop", sid, project)).failed == []
    argv = ["-m", "device_bridge.playground.run", "."]
    hub_server.call(hub_server.hub.send("p-play-stop", p.RunStart(sid=sid, argv=argv)))
    wait_until(lambda: any(c["call"] == "setCloseCallback" for c in _calls(hub_server, sid)),
               timeout=60, what="the app to set its close callback on the device")
    hub_server.call(hub_server.hub.send("p-play-stop", p.RunStop(sid=sid)))
    exit_of(hub_server, sid, timeout=60)
    wait_until(lambda: _calls(hub_server, sid)[-1:] == [{"call": "closed", "frame": None}],
               what="the close callback's calls from the device")
    assert {"call": "setLabel", "frame": None, "index": 0, "text": "closed on the device",
            "config": None} in _calls(hub_server, sid)


def _run_there(hub_server: HubServer, name: str, project: Path, *run_args: str) -> list[dict]:
    sid = attach(hub_server, name)
    assert hub_server.call(deploy(hub_server.hub, name, sid, project)).failed == []
    argv = ["-m", "device_bridge.playground.run", ".", *run_args]
    hub_server.call(hub_server.hub.send(name, p.RunStart(sid=sid, argv=argv)))
    assert exit_of(hub_server, sid, timeout=120)["code"] == 0, hub_server.recorder.output(sid)
    # a template has no close callback: its last call says the camera has no video to give
    wait_until(lambda: [c["call"] for c in _calls(hub_server, sid)[-1:]] == ["camera.wanted"],
               what="the template's last kit call from the device")
    return _calls(hub_server, sid)


def test_each_playground_template_makes_the_calls_on_the_device_it_makes_here(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    """The faces, classify and OCR templates with the generated models of
    test_playground_templates.py, each on a photo that gives a result."""
    for project, photo in (template_projects.faces(tmp_path), template_projects.classify(tmp_path),
                           template_projects.ocr(tmp_path)):
        _, here = kit_calls(project, "--photo", photo)
        assert any(c["call"] == "setLabel" for c in here), here
        there = _run_there(hub_server, f"p-{project.name}", project, "--photo", photo)
        assert there == here


def test_the_agent_reports_the_cameras_opencv_opens(hub_server: HubServer, agent: AgentProcess) -> None:
    here = cameras()
    assert here is not None  # OpenCV is installed with the tests; this machine has no /dev/video*
    assert hub_server.hub.online_devices()["dev-a"].cameras == here
