"""On-device MNN benchmark with a per-op profile, and tensor watchpoints, on a real agent."""

import subprocess
import sys
from pathlib import Path

from device_bridge import backends
from device_bridge import protocol as p
from device_bridge.deploy import deploy
from tests.device_bridge.harness import AgentProcess, Event, HubServer
from tests.fakes.photos import CAT, photo
from tests.waiting import wait_until

BUILD_MODEL = """
import sys
import MNN
F = MNN.expr
x = F.placeholder([1, 3, 16, 16], F.NCHW)
x.name = "input"
y = F.sigmoid(F.relu(x) * F.scalar(2.0))
y.name = "output"
F.save([y], sys.argv[1])
"""


def session_with_model(server: HubServer, project: str, root: Path) -> str:
    root.mkdir()
    subprocess.run(
        [sys.executable, "-c", BUILD_MODEL, str(root / "tiny.mnn")],
        check=True,
        capture_output=True,
        timeout=60,
    )
    sid = server.call(server.hub.open_session(project, "dev-a")).sid
    server.call(deploy(server.hub, project, sid, root))
    return sid


def test_bench_reports_latency_distribution_and_ops(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sid = session_with_model(hub_server, "p-bench", tmp_path / "proj")
    job = p.BenchStart(sid=sid, model="tiny.mnn", threads=1, loops=20, warmup=2)
    hub_server.call(hub_server.hub.send("p-bench", job))
    result = hub_server.recorder.wait(lambda e: e.type == "bench.result" and e.data["sid"] == sid, 60).data
    assert result["ok"], result["error"]
    assert 0 < result["min_ms"] <= result["median_ms"] <= result["p90_ms"] <= result["p99_ms"]
    types = {op["type"] for op in result["ops"]}
    assert {"ReLU", "BinaryOp", "UnaryOp"} <= types
    assert abs(sum(op["percent"] for op in result["ops"]) - 100) < 0.01
    assert set(result["ops"][0]) == {"name", "type", "ms", "percent", "mflops"}


def test_bench_of_a_missing_model_fails_cleanly(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sid = session_with_model(hub_server, "p-bench-missing", tmp_path / "proj")
    hub_server.call(hub_server.hub.send("p-bench-missing", p.BenchStart(sid=sid, model="../escape.mnn")))
    result = hub_server.recorder.wait(lambda e: e.type == "bench.result" and e.data["sid"] == sid, 60).data
    assert not result["ok"]
    assert "unsafe path" in result["error"]


def test_watchpoint_breaks_after_an_op_and_continues(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sid = session_with_model(hub_server, "p-watch", tmp_path / "proj")
    hub = hub_server.hub
    inputs = {"input": p.InputSpec(fill=-1.0)}
    hub_server.call(
        hub.send("p-watch", p.WatchStart(sid=sid, model="tiny.mnn", inputs=inputs, bins=4, sample=5))
    )

    def hits() -> list[dict]:
        return [
            e.data
            for e in hub_server.recorder.select(lambda e: e.type == "watch.hit" and e.data["sid"] == sid)
        ]

    def moved_on(seen: int) -> bool:
        done = hub_server.recorder.select(lambda e: e.type == "watch.done" and e.data["sid"] == sid)
        return len(hits()) > seen or bool(done)

    def resume(seen: int) -> None:
        hub_server.call(hub.send("p-watch", p.WatchContinue(sid=sid)))
        wait_until(lambda: moved_on(seen), what="the next hit")

    first = hub_server.recorder.wait(lambda e: e.type == "watch.hit" and e.data["sid"] == sid, 60).data
    assert first["shape"] == [1, 3, 16, 16]
    relu = None
    while not hub_server.recorder.select(lambda e: e.type == "watch.done" and e.data["sid"] == sid):
        seen = len(hits())
        relu = relu or next((h for h in hits() if h["op_type"] == "ReLU"), None)
        resume(seen)
    assert relu is not None
    assert relu["stats"] == {"min": 0.0, "max": 0.0, "mean": 0.0, "std": 0.0}
    assert relu["sample"] == [0.0] * 5
    assert sum(relu["histogram"]["counts"]) == 3 * 16 * 16
    final = hits()[-1]
    assert final["stats"]["min"] == final["stats"]["max"] == 0.5
    done = hub_server.recorder.wait(lambda e: e.type == "watch.done" and e.data["sid"] == sid)
    assert done.data["ok"] and done.data["hits"] == len(hits())


def test_the_agent_reports_its_backends_in_its_hello(hub_server: HubServer, agent: AgentProcess) -> None:
    info = hub_server.call(_online(hub_server))["dev-a"]
    assert info.backends is not None
    found = {b.name: b for b in info.backends}
    assert list(found) == list(backends.NAMES)
    assert found["CPU"].available and found["CPU"].reason == ""
    assert all(b.available or b.reason for b in info.backends)
    mnn = next(c for c in info.checks if c.name == "MNN")
    usable = ", ".join(b.name for b in info.backends if b.available)
    assert mnn.ok and mnn.detail.endswith(f"; backends: {usable}")


async def _online(server: HubServer) -> dict:
    return server.hub.online_devices()


def test_bench_runs_on_the_backend_asked_for_and_says_so(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sid = session_with_model(hub_server, "p-bench-backend", tmp_path / "proj")
    job = p.BenchStart(sid=sid, model="tiny.mnn", threads=2, precision="high", power="low",
                       backend="CPU", loops=5, warmup=1, per_op=False)
    hub_server.call(hub_server.hub.send("p-bench-backend", job))
    result = hub_server.recorder.wait(lambda e: e.type == "bench.result" and e.data["sid"] == sid, 60).data
    assert result["ok"], result["error"]
    assert (result["backend"], result["threads"], result["precision"], result["power"]) == (
        "CPU", 2, "high", "low")


def test_bench_on_a_backend_the_device_lacks_is_refused(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    info = hub_server.call(_online(hub_server))["dev-a"]
    absent = next(b for b in info.backends if not b.available)
    sid = session_with_model(hub_server, "p-bench-absent", tmp_path / "proj")
    hub_server.call(hub_server.hub.send("p-bench-absent", p.BenchStart(sid=sid, model="tiny.mnn",
                                                                        backend=absent.name)))
    result = hub_server.recorder.wait(lambda e: e.type == "bench.result" and e.data["sid"] == sid, 60).data
    assert not result["ok"]
    assert result["error"] == f"backend_unavailable: {absent.name} on this device: {absent.reason}"
    hub_server.call(hub_server.hub.send("p-bench-absent", p.BenchStart(sid=sid, model="tiny.mnn",
                                                                        backend="TPU")))
    unknown = hub_server.recorder.wait(lambda e: e.type == "bench.result" and e.data["sid"] == sid
                                       and "TPU" in (e.data["error"] or ""), 60).data
    assert unknown["error"].startswith("unknown backend 'TPU': one of CPU, OpenCL")


DYNAMIC_MODEL = """
import sys
import MNN
F = MNN.expr
x = F.placeholder([1, 3, -1, -1], F.NCHW)
x.name = "image"
y = F.sigmoid(F.relu(x) * F.scalar(2.0))
y.name = "score"
F.save([y], sys.argv[1])
"""
SPEC = """format = 1

[[inputs]]
name = "image"
shape = [1, 3, -1, -1]
{default}kind = "image"
layout = "NCHW"
scale = 0.00392156862745098

[[outputs]]
name = "score"
"""


def session_with_dynamic_model(server: HubServer, project: str, root: Path, default: str = "") -> str:
    """``det.mnn`` with input ``image`` ``[1, 3, ?, ?]``, its spec and a photo, on the device."""
    root.mkdir()
    subprocess.run([sys.executable, "-c", DYNAMIC_MODEL, str(root / "det.mnn")], check=True,
                   capture_output=True, timeout=60)
    (root / "det.mnn.model.toml").write_text(SPEC.format(default=default))
    (root / "photos").mkdir()
    (root / "photos" / "cat.png").write_bytes(photo(CAT).read_bytes())
    sid = server.call(server.hub.open_session(project, "dev-a")).sid
    server.call(deploy(server.hub, project, sid, root))
    return sid


def _next(server: HubServer, project: str, kind: str, message: p.Model) -> dict:
    """The data of the first ``kind`` event of the message's session after sending it."""
    sid = message.sid  # type: ignore[attr-defined]
    def matches(e: Event) -> bool:
        return e.type == kind and e.data["sid"] == sid

    before = len(server.recorder.select(matches))
    server.call(server.hub.send(project, message))
    wait_until(lambda: len(server.recorder.select(matches)) > before, timeout=60, what=f"a {kind}")
    return server.recorder.select(matches)[before].data


def _bench(server: HubServer, project: str, sid: str, **fields: object) -> dict:
    job = p.BenchStart(sid=sid, model="det.mnn", threads=1, loops=5, warmup=1, per_op=False, **fields)
    return _next(server, project, "bench.result", job)


def test_bench_of_a_dynamic_model_never_guesses_its_shape(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sid = session_with_dynamic_model(hub_server, "p-bench-dyn", tmp_path / "proj")
    refused = _bench(hub_server, "p-bench-dyn", sid)
    assert not refused["ok"]
    assert (refused["code"], refused["input"]) == ("input_shape_required", "image")
    assert "dynamic dim 2 (declared [1, 3, ?, ?])" in refused["error"]
    wrong = _bench(hub_server, "p-bench-dyn", sid, input_shapes={"image": [1, 1, 64, 64]})
    assert (wrong["code"], wrong["input"]) == ("input_shape_mismatch", "image")
    assert "fixed dim 1 of 3" in wrong["error"]

    small = _bench(hub_server, "p-bench-dyn", sid, input_shapes={"image": [1, 3, 8, 8]})
    large = _bench(hub_server, "p-bench-dyn", sid, input_shapes={"image": [1, 3, 640, 640]})
    assert small["ok"] and large["ok"], (small["error"], large["error"])
    assert small["input_shapes"] == {"image": [1, 3, 8, 8]}
    assert large["input_shapes"] == {"image": [1, 3, 640, 640]}
    assert small["inputs"] == {"image": "random"}
    # 6,400 times the values: the real cost, not the 1×1 one
    assert large["median_ms"] > 10 * small["median_ms"]


def test_bench_takes_a_photo_preprocessed_by_the_model_spec(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sid = session_with_dynamic_model(hub_server, "p-bench-photo", tmp_path / "proj",
                                     default="default_shape = [1, 3, 96, 128]\n")
    by_spec = _bench(hub_server, "p-bench-photo", sid)
    assert by_spec["ok"], by_spec["error"]
    assert by_spec["input_shapes"] == {"image": [1, 3, 96, 128]}  # the spec's default, shown
    photo_run = _bench(hub_server, "p-bench-photo", sid, inputs={"image": p.InputSpec(file="photos/cat.png")})
    assert photo_run["ok"], photo_run["error"]
    assert photo_run["inputs"] == {"image": "photos/cat.png"}
    assert photo_run["input_shapes"] == {"image": [1, 3, 96, 128]}
    broken = tmp_path / "proj" / "photos" / "broken.jpg"
    broken.write_bytes(b"not a jpeg at all")
    hub_server.call(deploy(hub_server.hub, "p-bench-photo", sid, tmp_path / "proj"))
    broken_input = {"image": p.InputSpec(file="photos/broken.jpg")}
    unusable = _bench(hub_server, "p-bench-photo", sid, inputs=broken_input)
    assert (unusable["ok"], unusable["code"], unusable["input"]) == (False, "input_file_unusable", "image")
    assert unusable["error"].startswith("input_file_unusable: broken.jpg: ")
    escape = _bench(hub_server, "p-bench-photo", sid, inputs={"image": p.InputSpec(file="../../etc/passwd")})
    assert not escape["ok"] and "unsafe path" in escape["error"]


def test_a_watch_on_a_dynamic_model_runs_at_the_shape_given(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    sid = session_with_dynamic_model(hub_server, "p-watch-dyn", tmp_path / "proj")
    watch = p.WatchStart(sid=sid, model="det.mnn", ops=["score"])
    refused = _next(hub_server, "p-watch-dyn", "watch.done", watch)
    assert (refused["ok"], refused["code"], refused["input"]) == (False, "input_shape_required", "image")
    sized = p.WatchStart(sid=sid, model="det.mnn", ops=["score"], input_shapes={"image": [1, 3, 5, 7]})
    hit = _next(hub_server, "p-watch-dyn", "watch.hit", sized)
    assert hit["shape"] == [1, 3, 5, 7]
    done = _next(hub_server, "p-watch-dyn", "watch.done", p.WatchContinue(sid=sid))
    assert done["ok"] and done["hits"] == 1
