"""Debugging over DAP through the hub: breakpoint, a local's value, step, continue to the end."""

from pathlib import Path

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from tests.device_bridge.dap import DapClient
from tests.device_bridge.harness import AgentProcess, HubServer

SCRIPT = """def add(a, b):
    total = a + b
    return total


x = add(2, 3)
print("result", x)
"""


def test_breakpoint_variable_step_continue(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.py").write_text(SCRIPT)
    sid = hub_server.call(hub_server.hub.open_session("p-debug", "dev-a")).sid
    hub_server.call(deploy(hub_server.hub, "p-debug", sid, project))
    hub_server.call(hub_server.hub.send("p-debug", p.RunStart(sid=sid, argv=["main.py"], debug=True)))
    started = hub_server.recorder.wait(lambda e: e.type == "run.started" and e.data["sid"] == sid)
    remote = str(Path(started.data["cwd"]) / "main.py")

    dap = DapClient(hub_server, "p-debug", sid)
    dap.request(
        "initialize",
        clientID="test",
        adapterID="python",
        pathFormat="path",
        linesStartAt1=True,
        columnsStartAt1=True,
    )
    attach_seq = dap.send("attach", justMyCode=True)
    dap.event("initialized")
    body = dap.request("setBreakpoints", source={"path": remote}, breakpoints=[{"line": 3}])
    assert body["breakpoints"][0]["verified"]
    dap.request("configurationDone")
    dap._wait(lambda m: m["type"] == "response" and m["request_seq"] == attach_seq)

    stopped = dap.event("stopped")
    assert stopped["body"]["reason"] == "breakpoint"
    thread = stopped["body"]["threadId"]
    frame = dap.request("stackTrace", threadId=thread)["stackFrames"][0]
    assert frame["line"] == 3
    scope = dap.request("scopes", frameId=frame["id"])["scopes"][0]
    variables = dap.request("variables", variablesReference=scope["variablesReference"])
    values = {v["name"]: v["value"] for v in variables["variables"]}
    assert values["total"] == "5"
    assert values["a"] == "2"

    dap.request("next", threadId=thread)
    assert dap.event("stopped", nth=2)["body"]["reason"] == "step"
    dap.request("continue", threadId=thread)
    dap.event("terminated")
    dap.request("disconnect")
    exit_event = hub_server.recorder.wait(lambda e: e.type == "run.exit" and e.data["sid"] == sid, 30)
    assert exit_event.data["code"] == 0
    assert "result 5" in hub_server.recorder.output(sid)
