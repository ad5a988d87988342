"""The flow of a project on real parts: a template's local training job, a real conversion,
quantization and evaluation through the tool API, an image dataset; then the training script is
edited and committed, and a quantization fails."""

import hashlib
from pathlib import Path

from fastapi.testclient import TestClient

from device_bridge.runtime import spec as model_spec
from tests.fakes import models
from tests.plugin.tools import wait_for_run
from tests.server.lineage.test_lineage import committed_project, run_tool
from tests.server.training.test_jobs_api import submit, wait_job

# The template's digits classifier: 8 × 8 grey images, ten classes (the dataset here uses two).
DIGITS_SPEC = {
    "inputs": [{"name": "input", "shape": [-1, 1, 8, 8], "kind": "image", "layout": "NCHW",
                "color": "GRAY", "resize": "stretch", "scale": 16 / 255}],
    "outputs": [{"name": "logits", "kind": "logits", "labels": [str(d) for d in range(10)]}],
}
ORDER = ["data", "train", "convert", "quantize", "evaluate", "budgets", "deploy", "measure"]


def flow(client: TestClient, project: dict) -> dict[str, dict]:
    response = client.get(f"/api/projects/{project['id']}/flow")
    assert response.status_code == 200, response.text
    steps = response.json()["steps"]
    assert [s["id"] for s in steps] == ORDER
    return {s["id"]: s for s in steps}


def states(steps: dict[str, dict]) -> list[str]:
    return [steps[i]["state"] for i in ORDER]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def image_dataset(folder: Path) -> None:
    for split in ("train", "val"):
        for label in ("0", "1"):
            models.calibration_images(folder / split / label, count=3, size=8, seed=int(label))


def commit(client: TestClient, project: dict, path: str, message: str) -> None:
    base = f"/api/projects/{project['id']}/git"
    assert client.post(f"{base}/stage", json={"paths": [path]}).status_code == 200
    made = client.post(f"{base}/commit", json={"message": message, "author": "A <a@b.c>"})
    assert made.status_code in (200, 201), made.text


def test_the_flow_from_data_to_an_int8_model_and_back_to_stale(client: TestClient) -> None:
    project = committed_project(client)
    root = Path(project["path"])
    # the template brings its sample digits as a dataset
    assert states(flow(client, project)) == ["done"] + ["todo"] * (len(ORDER) - 1)

    image_dataset(root / "data")
    job = wait_job(client, submit(client, project, command="python train.py --epochs 1")["id"],
                   timeout=120)
    assert job["status"] == "succeeded", job
    onnx = f"outputs/{job['id']}/model.onnx"
    steps = flow(client, project)
    assert states(steps)[:3] == ["done", "done", "todo"]
    assert steps["data"]["artifact"]["path"] == "data"
    assert steps["train"]["artifact"]["path"] == onnx
    assert steps["train"]["artifact"]["sha256"] == sha256(root / onnx)
    assert steps["train"]["artifact"]["lineage"] == f"/api/projects/{project['id']}/lineage?path={onnx}"
    assert f"job {job['id'][:8]}" in steps["train"]["detail"]
    assert steps["convert"]["next"] == {"action": "tool", "tool": "convert", "label": "Convert",
                                        "args": {"model": onnx, "output": "model.mnn"}}

    run_tool(client, project, "convert", model=onnx, output="digits.mnn")
    steps = flow(client, project)
    assert steps["convert"]["state"] == "done"
    assert steps["convert"]["artifact"]["sha256"] == sha256(root / "digits.mnn")
    # calibrated as the model is fed: the preprocessing of the spec train.py wrote, carried
    assert steps["quantize"]["next"]["args"] == {"model": "digits.mnn", "dataset": "data", "format": "GRAY",
                                                 "mean": [0.0], "normal": [0.00392157]}

    models.calibration_images(root / "calib", count=4, size=8)
    run_tool(client, project, "quantize", model="digits.mnn", output="digits.int8.mnn",
             calibration="calib", format="GRAY", width=8, height=8, mean=[0.0], normal=[1 / 255])
    steps = flow(client, project)
    assert states(steps) == ["done", "done", "done", "done", "todo", "todo", "todo", "todo"]
    assert steps["quantize"]["artifact"]["path"] == "digits.int8.mnn"
    assert steps["evaluate"]["next"]["args"] == {"models": ["digits.mnn", "digits.int8.mnn"],
                                                 "dataset": "data"}
    [budget] = steps["budgets"]["next"]["args"]["budgets"]
    assert (budget["model"], budget["reference"], budget["min_cosine"]) == (
        "digits.int8.mnn", "digits.mnn", 0.999)
    assert budget["max_size_mb"] >= (root / "digits.int8.mnn").stat().st_size / 2**20
    assert "max_latency_ms" not in budget  # nothing measured it yet
    assert steps["measure"]["next"]["args"] == {"model": "digits.int8.mnn"}

    for model in ("digits.mnn", "digits.int8.mnn"):
        (root / f"{model}.model.toml").write_text(model_spec.dumps(model_spec.from_dict(DIGITS_SPEC)))
    run_tool(client, project, "evaluate", **steps["evaluate"]["next"]["args"])
    steps = flow(client, project)
    assert steps["evaluate"]["state"] == "done"
    assert "digits.int8.mnn top-1 " in steps["evaluate"]["detail"]

    script = root / "train.py"
    script.write_text(script.read_text() + "\n# a wider head next time\n")
    commit(client, project, "train.py", "train: a note on the head")
    steps = flow(client, project)
    assert states(steps)[:5] == ["done", "stale", "stale", "stale", "stale"]
    assert "train.py changed" in steps["train"]["detail"]

    (root / "broken").mkdir()
    (root / "broken" / "sample.png").write_bytes(b"not a picture")
    started = client.post(f"/api/projects/{project['id']}/tools/quantize",
                          json={"model": "digits.mnn", "output": "digits.int8.mnn", "overwrite": True,
                                "calibration": "broken", "width": 8, "height": 8})
    assert started.status_code == 202, started.text
    assert wait_for_run(client, started.json()["id"])["status"] == "failed"
    steps = flow(client, project)
    assert steps["quantize"]["state"] == "failed"
    assert f"run {started.json()['id'][:8]} failed" in steps["quantize"]["detail"]


def test_a_converted_model_whose_file_changed_is_stale(client: TestClient) -> None:
    """No job: convert is done on its own input; rewriting the file it made makes it stale."""
    project = committed_project(client)
    root = Path(project["path"])
    models.conv_net(root / "net.onnx", size=8)
    run_tool(client, project, "convert", model="net.onnx", output="net.mnn")
    steps = flow(client, project)
    assert (steps["train"]["state"], steps["convert"]["state"]) == ("todo", "done")
    assert steps["convert"]["detail"] == "net.mnn from net.onnx"
    assert steps["deploy"]["next"] == {"action": "deploy", "label": "Deploy to a device",
                                       "tool": None, "args": {}}
    with (root / "net.mnn").open("ab") as handle:
        handle.write(b"\0")
    steps = flow(client, project)
    assert steps["convert"]["state"] == "stale"
    assert "net.mnn has changed since" in steps["convert"]["detail"]
    assert steps["convert"]["artifact"]["sha256"] != sha256(root / "net.mnn")


def test_budgets_follow_the_check_report_of_head(client: TestClient) -> None:
    project = committed_project(client)
    root = Path(project["path"])
    models.conv_net(root / "net.onnx", size=8)
    run_tool(client, project, "convert", model="net.onnx", output="net.mnn")
    [template] = flow(client, project)["budgets"]["next"]["args"]["budgets"]
    assert set(template) == {"model", "max_size_mb"} and template["model"] == "net.mnn"

    limit = template["max_size_mb"]
    (root / "mnnwb.toml").write_text(f'[[budget]]\nmodel = "net.mnn"\nmax_size_mb = {limit}\n')
    for path in ("net.onnx", "net.mnn", "mnnwb.toml"):
        commit(client, project, path, f"add {path}")
    assert flow(client, project)["budgets"]["state"] == "todo"
    checked = client.post(f"/api/projects/{project['id']}/checks", json={})
    assert checked.status_code == 200 and checked.json()["passed"], checked.text
    budgets = flow(client, project)["budgets"]
    assert (budgets["state"], budgets["next"]["action"]) == ("done", "checks")

    (root / "mnnwb.toml").write_text('[[budget]]\nmodel = "net.mnn"\nmax_size_mb = 0.000001\n')
    commit(client, project, "mnnwb.toml", "a budget too tight")
    assert flow(client, project)["budgets"]["state"] == "stale"
    assert not client.post(f"/api/projects/{project['id']}/checks", json={}).json()["passed"]
    budgets = flow(client, project)["budgets"]
    assert budgets["state"] == "failed"
    assert budgets["detail"].startswith("size_mb of net.mnn is ")
