"""Debugging and measuring a playground while it runs on a real agent process: the camera app
of tests/fakes/playground.py started with the Playground panel's argv under the debugger, a
frame fed on stdin as the panel feeds it, a breakpoint in its frame callback (a local read, a
watch expression evaluated), its kit call after continue; the Perf panel's per-op benchmark of
the app's model and the run's perf samples meanwhile; Stop runs the close callback."""

import base64
import io
import json
from pathlib import Path

from PIL import Image

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from tests.device_bridge.dap import DapClient
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_agent_playground import _calls
from tests.device_bridge.test_agent_runs import attach, exit_of
from tests.fakes.playground import CAMERA_APP, SIZE, camera_project, colour_frame
from tests.waiting import wait_until

# webui/src/features/playground/playground.ts (RUN_ARGV) and debug/run.ts (DEBUG_ENV)
PANEL_ARGV = ["-m", "device_bridge.playground.run", ".", "--live"]
DEBUG_ENV = {"PYDEVD_DISABLE_FILE_VALIDATION": "1"}
LABEL_LINE = CAMERA_APP.splitlines().index('    kit.setLabel(0, "%s %.2f" % (name, score))') + 1


def _frame_line(frame: int, colour: str) -> str:
    """A frame as the panel sends it: ``MNNWB_FRAME`` and the picture as a base64 JPEG."""
    jpeg = io.BytesIO()
    Image.fromarray(colour_frame(colour)).save(jpeg, "JPEG", quality=85)
    payload = {"frame": frame, "jpeg": base64.b64encode(jpeg.getvalue()).decode()}
    return f"MNNWB_FRAME {json.dumps(payload)}\n"


def _attached(server: HubServer, project: str, sid: str, main: str) -> DapClient:
    """The debugger attached as the Debug panel attaches it, a breakpoint on the label line."""
    dap = DapClient(server, project, sid)
    dap.request("initialize", clientID="test", adapterID="python", pathFormat="path",
                linesStartAt1=True, columnsStartAt1=True)
    attach_seq = dap.send("attach", justMyCode=True)
    dap.event("initialized")
    body = dap.request("setBreakpoints", source={"path": main}, breakpoints=[{"line": LABEL_LINE}])
    assert body["breakpoints"][0]["verified"], body
    dap.request("configurationDone")
    dap._wait(lambda m: m["type"] == "response" and m["request_seq"] == attach_seq)
    return dap


def test_a_breakpoint_a_watch_and_per_op_times_on_a_playground_running_on_the_device(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    name = "p-play-debug"
    project = camera_project(tmp_path / "colours")
    sid = attach(hub_server, name)
    assert hub_server.call(deploy(hub_server.hub, name, sid, project)).failed == []
    start = p.RunStart(sid=sid, argv=PANEL_ARGV, debug=True, env=DEBUG_ENV)
    hub_server.call(hub_server.hub.send(name, start))
    started = hub_server.recorder.wait(lambda e: e.type == "run.started" and e.data["sid"] == sid, 60)
    assert started.data["debug"]
    dap = _attached(hub_server, name, sid, str(Path(started.data["cwd"]) / "main.py"))
    wait_until(lambda: any(c["call"] == "live" for c in _calls(hub_server, sid)),
               timeout=60, what="the app to wait for the panel's frames on the device")

    hub_server.call(hub_server.hub.send(name, p.RunStdin(sid=sid, text=_frame_line(0, "green"))))
    stopped = dap.event("stopped")
    assert stopped["body"]["reason"] == "breakpoint"
    thread = stopped["body"]["threadId"]
    frame = dap.request("stackTrace", threadId=thread)["stackFrames"][0]
    assert (frame["name"], frame["line"]) == ("on_frame", LABEL_LINE)
    scope = dap.request("scopes", frameId=frame["id"])["scopes"][0]
    local = {v["name"]: v["value"] for v in dap.request(
        "variables", variablesReference=scope["variablesReference"])["variables"]}
    height, width = SIZE
    assert (local["width"], local["height"], local["name"]) == (str(width), str(height), "'green'")
    watch = dap.request("evaluate", expression="width * height", frameId=frame["id"], context="watch")
    assert watch["result"] == str(width * height)
    # held at the breakpoint: the frame's label is not set yet
    assert not [c for c in _calls(hub_server, sid) if c["call"] == "setLabel" and c["frame"] == 0]

    dap.request("continue", threadId=thread)
    label = wait_until(lambda: [c for c in _calls(hub_server, sid)
                                if c["call"] == "setLabel" and c["frame"] == 0],
                       timeout=60, what="the frame's label after continue")
    assert label[0]["text"].startswith("green ")
    dap.request("setBreakpoints", source={"path": str(Path(started.data["cwd"]) / "main.py")},
                breakpoints=[])

    # The Perf panel: the app's model benchmarked per op on the device while the app runs.
    bench = p.BenchStart(sid=sid, model="models/colours.mnn", threads=1, loops=5, warmup=1, per_op=True)
    hub_server.call(hub_server.hub.send(name, bench))
    result = hub_server.recorder.wait(lambda e: e.type == "bench.result" and e.data["sid"] == sid, 120).data
    assert result["ok"], result
    assert result["ops"] and all(op["ms"] >= 0 and op["type"] for op in result["ops"])
    assert not any(e.data["sid"] == sid for e in hub_server.recorder.select(lambda e: e.type == "run.exit"))
    samples = wait_until(lambda: [s for e in hub_server.recorder.select(
        lambda e: e.type == "perf" and e.data["sid"] == sid) for s in e.data["samples"]],
        what="the run's perf samples")
    assert all(s["rss"] > 0 for s in samples)

    hub_server.call(hub_server.hub.send(name, p.RunStop(sid=sid)))
    exit_of(hub_server, sid, timeout=60)
    wait_until(lambda: _calls(hub_server, sid)[-1:] == [{"call": "closed", "frame": None}],
               what="the close callback's calls from the device")
    assert [c["text"] for c in _calls(hub_server, sid) if c["call"] == "setLabel"][-1] == "bye"
