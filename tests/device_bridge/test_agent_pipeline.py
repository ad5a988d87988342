"""A pipeline deployed to a real agent process and run there (``python -m
device_bridge.runtime.pipeline_cli``, which the agent's programs can import from the agent
itself) answers what it answers here."""

import json
import shutil
from pathlib import Path

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.runtime import pipeline
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_agent_runs import attach, exit_of
from tests.device_bridge.test_pipeline import COINS
from tests.fakes.photos import photo
from tests.waiting import wait_until


def test_a_pipeline_on_the_device_answers_as_here(
    hub_server: HubServer,
    agent: AgentProcess,
    coins_pipeline: Path,
    tmp_path: Path,
) -> None:
    project = tmp_path / "chain"
    project.mkdir()
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, project / path.name)
    shutil.copy(coins_pipeline, project / "pipeline.toml")
    shutil.copy(photo(COINS), project / COINS)
    sid = attach(hub_server, "p-pipe")
    assert hub_server.call(deploy(hub_server.hub, "p-pipe", sid, project)).failed == []
    argv = ["-m", "device_bridge.runtime.pipeline_cli", "run", "pipeline.toml", "--input", COINS, "--json"]
    hub_server.call(hub_server.hub.send("p-pipe", p.RunStart(sid=sid, argv=argv)))
    assert exit_of(hub_server, sid, timeout=120)["code"] == 0, hub_server.recorder.output(sid)

    def stdout() -> str:
        return "".join(
            e.data["text"]
            for e in hub_server.recorder.select(
                lambda e: e.type == "log" and e.data["sid"] == sid and e.data["stream"] == "stdout"
            )
        )

    # The run's last output may reach the server just after its exit.
    wait_until(lambda: stdout().endswith("}\n"), what="the pipeline's JSON line from the device")
    lines = [line for line in stdout().splitlines() if line.strip()]
    assert len(lines) == 1, hub_server.recorder.output(sid)
    there = json.loads(lines[0])
    here = pipeline.Runner(pipeline.load(project / "pipeline.toml")).run(project / COINS)
    assert [s["id"] for s in there["stages"]] == [s["id"] for s in here["stages"]]
    assert [s["items"] for s in there["stages"]] == [s["items"] for s in here["stages"]]
    assert len(there["stages"][2]["items"][0]["boxes"]) >= 15
