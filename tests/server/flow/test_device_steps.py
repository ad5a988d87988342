"""Deploy and measure in the flow, on a real paired agent: a tab deploys the project and
benchmarks its model on the device; the server keeps both and the flow shows them."""

from pathlib import Path

import httpx

from tests.conftest import LiveServer
from tests.fakes import models
from tests.server.devices.test_devices_api import command, devices, next_event, pair, tab_socket
from tests.waiting import wait_until


def flow(live: LiveServer, pid: str) -> dict[str, dict]:
    response = httpx.get(f"{live.url}/api/projects/{pid}/flow", headers=live.auth)
    assert response.status_code == 200, response.text
    return {s["id"]: s for s in response.json()["steps"]}


def convert(live: LiveServer, pid: str, model: str, output: str, **options) -> None:
    started = httpx.post(f"{live.url}/api/projects/{pid}/tools/convert",
                         json={"model": model, "output": output, **options}, headers=live.auth)
    assert started.status_code == 202, started.text
    url = f"{live.url}/api/tool-runs/{started.json()['id']}"
    run = wait_until(lambda: (r := httpx.get(url, headers=live.auth).json())["status"]
                     not in ("queued", "running") and r, 60, "the conversion to end")
    assert run["status"] == "succeeded", run["error"]


def test_a_deploy_and_a_benchmark_on_a_device_are_kept(live_server: LiveServer, tmp_path: Path) -> None:
    project = httpx.post(f"{live_server.url}/api/projects", json={"name": "flowdev"},
                         headers=live_server.auth).json()
    pid, root = project["id"], Path(project["path"])
    models.conv_net(root / "net.onnx", size=8)
    convert(live_server, pid, "net.onnx", "net.mnn")
    steps = flow(live_server, pid)
    assert (steps["deploy"]["state"], steps["measure"]["state"]) == ("todo", "todo")

    _, agent = pair(live_server, tmp_path / "agent", name="board")
    try:
        did = devices(live_server)[0]["id"]
        opened = httpx.post(f"{live_server.url}/api/projects/{pid}/devices/{did}/sessions",
                            headers=live_server.auth)
        assert opened.status_code == 201, opened.text
        sid = opened.json()["sid"]
        with tab_socket(live_server, pid) as ws:
            command(ws, "devices", "sync.start", sid=sid)
            assert "net.mnn" in next_event(ws, "sync.done")["sent"]
            assert next_event(ws, "flow.recorded") == {"device_id": did}
            deployed = flow(live_server, pid)
            assert deployed["deploy"]["state"] == "done"
            assert deployed["deploy"]["artifact"]["path"] == "net.mnn"
            assert deployed["deploy"]["detail"].startswith("On board since ")
            assert deployed["measure"]["next"] == {
                "action": "measure", "label": "Benchmark on board", "tool": None,
                "args": {"device_id": did, "model": "net.mnn"}}

            command(ws, "devices", "bench.start", sid=sid, model="net.mnn", threads=1, loops=3,
                    warmup=1, per_op=False)
            result = next_event(ws, "bench.result", timeout=120)
            assert result["ok"], result
            assert next_event(ws, "flow.recorded") == {"device_id": did}
            measured = flow(live_server, pid)
            assert measured["measure"]["state"] == "done"
            assert measured["measure"]["detail"] == f"net.mnn on board: median {result['median_ms']:.2f} ms"
            [budget] = measured["budgets"]["next"]["args"]["budgets"]
            assert budget["max_latency_ms"] == round(result["median_ms"] * 1.2, 2)

        with (root / "net.mnn").open("ab") as handle:
            handle.write(b"\0")
        steps = flow(live_server, pid)
        assert [steps[i]["state"] for i in ("convert", "deploy", "measure")] == ["stale"] * 3
    finally:
        agent.kill()
