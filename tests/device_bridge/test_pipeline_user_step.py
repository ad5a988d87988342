"""A project's own Python step in a pipeline (``step = "module:function"``): run here, refused
by name when it cannot be found or gives no item, and stopped at a breakpoint inside it when the
pipeline runs under the debugger on a real agent process."""

import json
import shutil
from pathlib import Path

import pytest

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.runtime import pipeline
from device_bridge.runtime.pipeline import PipelineError
from tests.device_bridge.dap import DapClient
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_pipeline import COINS
from tests.fakes.photos import photo

STEPS = """from device_bridge.runtime.steps import Picture


def keep_left(item, params):
    width = item.pixels.shape[1]
    kept = width // int(params.get("by", 2))
    return Picture(item.pixels[:, :kept], item.x, item.y)


def nothing(item, params):
    return None
"""
BREAK_LINE = 6  # kept = …
PIPELINE = '[[stages]]\nid = "left"\nstep = "steps:keep_left"\nby = 2\n'


def _project(folder: Path, text: str = PIPELINE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "steps.py").write_text(STEPS)
    (folder / "pipeline.toml").write_text(text)
    shutil.copy(photo(COINS), folder / COINS)
    return folder


def test_a_project_step_runs_on_each_item_and_is_named_when_it_fails(tmp_path: Path) -> None:
    folder = _project(tmp_path / "p")
    result = pipeline.Runner(pipeline.load(folder / "pipeline.toml")).run(folder / COINS)
    assert [s["kind"] for s in result["stages"]] == ["input", "step"]
    assert result["stages"][1]["items"][0]["width"] == 192 and result["stages"][1]["memory_mb"] is None
    for step, reason in (("nowhere:f", "nowhere.py is not beside the pipeline"),
                         ("steps:absent", "steps.py has no function 'absent'")):
        (folder / "other.toml").write_text(f'[[stages]]\nid = "s"\nstep = "{step}"\n')
        with pytest.raises(PipelineError) as refused:
            pipeline.Runner(pipeline.load(folder / "other.toml"))
        assert (refused.value.where, refused.value.reason) == ("stage 's'.step", reason)
    (folder / "other.toml").write_text('[[stages]]\nid = "s"\nstep = "steps:nothing"\n')
    with pytest.raises(PipelineError, match="steps:nothing gave NoneType, not a Picture"):
        pipeline.Runner(pipeline.load(folder / "other.toml")).run(folder / COINS)


def test_a_breakpoint_in_a_project_step_stops_the_pipeline_on_the_device(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    folder = _project(tmp_path / "proj")
    sid = hub_server.call(hub_server.hub.open_session("p-steps", "dev-a")).sid
    hub_server.call(deploy(hub_server.hub, "p-steps", sid, folder))
    argv = ["-m", "device_bridge.runtime.pipeline_cli", "run", "pipeline.toml", "--input", COINS, "--json"]
    hub_server.call(hub_server.hub.send("p-steps", p.RunStart(sid=sid, argv=argv, debug=True)))
    started = hub_server.recorder.wait(lambda e: e.type == "run.started" and e.data["sid"] == sid)
    remote = str(Path(started.data["cwd"]) / "steps.py")

    dap = DapClient(hub_server, "p-steps", sid)
    dap.request("initialize", clientID="test", adapterID="python", pathFormat="path",
                linesStartAt1=True, columnsStartAt1=True)
    attach_seq = dap.send("attach", justMyCode=True)
    dap.event("initialized")
    body = dap.request("setBreakpoints", source={"path": remote}, breakpoints=[{"line": BREAK_LINE}])
    assert body["breakpoints"][0]["verified"]
    dap.request("configurationDone")
    dap._wait(lambda m: m["type"] == "response" and m["request_seq"] == attach_seq)

    stopped = dap.event("stopped")
    assert stopped["body"]["reason"] == "breakpoint"
    thread = stopped["body"]["threadId"]
    frame = dap.request("stackTrace", threadId=thread)["stackFrames"][0]
    assert (frame["line"], Path(frame["source"]["path"]).name) == (BREAK_LINE, "steps.py")
    scope = dap.request("scopes", frameId=frame["id"])["scopes"][0]
    variables = dap.request("variables", variablesReference=scope["variablesReference"])
    assert {v["name"]: v["value"] for v in variables["variables"]}["width"] == "384"
    dap.request("continue", threadId=thread)
    dap.event("terminated")
    dap.request("disconnect")
    exit_event = hub_server.recorder.wait(lambda e: e.type == "run.exit" and e.data["sid"] == sid, 60)
    assert exit_event.data["code"] == 0, hub_server.recorder.output(sid)
    line = next(t for t in hub_server.recorder.output(sid).splitlines() if t.startswith("{"))
    assert json.loads(line)["stages"][1]["items"][0]["width"] == 192
