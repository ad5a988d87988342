"""What publishing from a project keeps on the card: inputs and outputs (from the model's spec, or
from an algorithm.toml the publisher wrote), license, authors, accuracy with its evaluation set,
the demo — runnable after install — and no path of the project or of a job."""

import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from tests.fakes.models import conv_net
from tests.server.lineage.test_lineage import run_tool
from tests.server.market.test_publish import create_project

LABELS = [f"class-{i}" for i in range(10)]
SPEC = {"format": 1,
        "inputs": [{"name": "input", "shape": [1, 3, 16, 16], "kind": "image", "layout": "NCHW",
                    "color": "BGR", "resize": "stretch", "scale": 0.00392156862745098,
                    "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}],
        "outputs": [{"name": "output", "kind": "logits", "labels_file": "labels.txt"}]}
DEMO = '''import sys
from pathlib import Path

import MNN
import numpy as np

HERE = Path(__file__).resolve().parent
net = MNN.nn.load_module_from_file(str(HERE / "net.mnn"), ["input"], ["output"])
data = np.linspace(0, 1, 3 * 16 * 16, dtype=np.float32).reshape(1, 3, 16, 16)
out = np.array(net.forward(MNN.expr.const(data, [1, 3, 16, 16], MNN.expr.NCHW)).read())
print("top", int(out.argmax()), "args", sys.argv[1:])
'''
HANDMADE = '''format = 1
id = "ignored-here"
version = "0"
name = "Hand-made net"
task = "image-classification"
license = "Apache-2.0"
authors = ["Vision team"]

[[inputs]]
name = "input"
shape = [1, 3, 16, 16]
layout = "NCHW"
size = [16, 16]

[[outputs]]
name = "output"
shape = [1, 10]
labels = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]

[metrics]
accuracy = 0.8
eval_set = "200 held-out photos"

[demo]
entry = "run.py"
args = ["--top", "3"]
'''


def converted_with_spec(client: TestClient) -> dict:
    """A project with models/net.mnn converted from ONNX, its spec carried from the source, and
    a demo that loads the model beside itself."""
    project = create_project(client, "vision")
    models = Path(project["path"], "models")
    models.mkdir()
    conv_net(models / "net.onnx", size=16)
    (models / "labels.txt").write_text("\n".join(LABELS) + "\n")
    spec = client.put(f"/api/projects/{project['id']}/model-spec",
                      params={"path": "models/net.onnx"}, json=SPEC)
    assert spec.status_code == 200, spec.text
    run_tool(client, project, "convert", model="models/net.onnx", output="models/net.mnn")
    assert Path(models, "net.mnn.model.toml").is_file()
    (models / "demo.py").write_text(DEMO)
    return project


def publish(client: TestClient, project: dict, body: dict) -> dict:
    answer = client.post(f"/api/projects/{project['id']}/publish", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def card_version(client: TestClient, id: str, version: str) -> dict:
    card = client.get(f"/api/market/{id}", params={"source": "registry"}).json()
    return next(v for v in card["versions"] if v["version"] == version)


def run_demo(root: str, entry: str, args: list[str]) -> str:
    done = subprocess.run([sys.executable, entry, *args], cwd=root, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_model_with_a_spec_is_published_with_everything_its_card_shows(client: TestClient,
                                                                          settings) -> None:
    project = converted_with_spec(client)
    refused = client.post(f"/api/projects/{project['id']}/publish", json={
        "id": "net", "version": "1.0.0", "files": ["models/net.mnn"], "accuracy": 0.9})
    assert refused.status_code == 422 and "eval_set" in refused.text
    publish(client, project, {"id": "net", "version": "1.0.0", "license": "MIT",
                              "files": ["models/net.mnn", "models/demo.py", "models/net.onnx"],
                              "accuracy": 0.9, "eval_set": "ten photos of the team's desk"})
    version = card_version(client, "net", "1.0.0")
    assert {f["path"]: f["role"] for f in version["files"]} == {
        "net.mnn": "model", "demo.py": "demo", "net.onnx": "source-model"}
    [given] = version["inputs"]
    assert (given["name"], given["shape"], given["layout"], given["color"]) == (
        "input", [1, 3, 16, 16], "NCHW", "BGR")
    assert (given["size"], given["mean"], given["std"]) == ([16, 16], SPEC["inputs"][0]["mean"],
                                                            SPEC["inputs"][0]["std"])
    assert given["scale"] == SPEC["inputs"][0]["scale"]
    [answer] = version["outputs"]
    assert (answer["name"], answer["kind"], answer["labels"]) == ("output", "logits", LABELS)
    assert (version["license"], version["authors"]) == ("MIT", ["local"])
    figures = version["metrics"]
    assert (figures["accuracy"], figures["eval_set"]) == (0.9, "ten photos of the team's desk")
    assert figures["size_bytes"] == Path(project["path"], "models/net.mnn").stat().st_size
    assert version["demo"] == {"entry": "demo.py", "args": []}

    # The next version, without figures of its own, shows none: they were the first one's.
    publish(client, project, {"id": "net", "version": "1.0.1", "files": ["models/net.mnn"]})
    later = card_version(client, "net", "1.0.1")
    assert (later["metrics"]["accuracy"], later["metrics"]["eval_set"]) == (None, None)
    assert (later["license"], later["inputs"]) == ("MIT", version["inputs"])

    consumer = create_project(client, "consumer")
    installed = client.post("/api/market/net/versions/1.0.0/install",
                            json={"source": "registry", "project_id": consumer["id"]})
    assert installed.status_code == 201, installed.text
    assert installed.json()["demo"] == "market/net/demo.py"
    assert (run_demo(consumer["path"], "market/net/demo.py", [])
            == run_demo(project["path"], "models/demo.py", []))
    manifest = Path(consumer["path"], "market/net/algorithm.toml").read_text()
    for leak in (project["path"], str(settings.data_dir), "models/", "artifacts"):
        assert leak not in manifest


def test_an_installed_package_republished_carries_no_figures_but_those_given(
        client: TestClient) -> None:
    project = converted_with_spec(client)
    publish(client, project, {"id": "net", "version": "1.0.0", "license": "MIT",
                              "files": ["models/net.mnn", "models/demo.py"],
                              "accuracy": 0.9, "eval_set": "ten photos"})
    consumer = create_project(client, "consumer")
    installed = client.post("/api/market/net/versions/1.0.0/install",
                            json={"source": "registry", "project_id": consumer["id"]}).json()
    files = installed["files"]
    model = Path(consumer["path"], "market/net/net.mnn")
    model.write_bytes(model.read_bytes() + b"\0")  # another model than the one measured
    publish(client, consumer, {"id": "net-changed", "version": "1.0.0", "files": files})
    changed = card_version(client, "net-changed", "1.0.0")
    assert (changed["metrics"]["accuracy"], changed["metrics"]["eval_set"]) == (None, None)
    assert (changed["license"], changed["demo"]["entry"]) == ("MIT", "demo.py")
    assert changed["inputs"] == card_version(client, "net", "1.0.0")["inputs"]
    publish(client, consumer, {"id": "net-changed", "version": "1.0.1", "files": files,
                               "accuracy": 0.7, "eval_set": "the same ten photos"})
    given = card_version(client, "net-changed", "1.0.1")
    assert (given["metrics"]["accuracy"], given["metrics"]["eval_set"]) == (0.7, "the same ten photos")


def test_an_algorithm_toml_the_publisher_wrote_gives_the_card_and_the_demo(client: TestClient) -> None:
    project = converted_with_spec(client)
    package = Path(project["path"], "pkg")
    package.mkdir()
    (package / "algorithm.toml").write_text(HANDMADE)
    (package / "net.mnn").write_bytes(Path(project["path"], "models/net.mnn").read_bytes())
    (package / "run.py").write_text(DEMO)
    (package / "LICENSE").write_text("Apache License\nVersion 2.0, January 2004\n")
    publish(client, project, {"id": "handmade", "version": "2.0.0",
                              "files": ["pkg/algorithm.toml", "pkg/net.mnn", "pkg/run.py", "pkg/LICENSE"]})
    card = client.get("/api/market/handmade", params={"source": "registry"}).json()
    assert card["license_text"] == "Apache License\nVersion 2.0, January 2004\n"
    version = card_version(client, "handmade", "2.0.0")
    assert (version["license"], version["authors"]) == ("Apache-2.0", ["Vision team"])
    assert (version["metrics"]["accuracy"], version["metrics"]["eval_set"]) == (0.8, "200 held-out photos")
    assert [i["size"] for i in version["inputs"]] == [[16, 16]]
    assert version["outputs"][0]["labels"][:2] == ["a", "b"]
    assert version["demo"] == {"entry": "run.py", "args": ["--top", "3"]}
    consumer = create_project(client, "consumer")
    result = client.post("/api/market/handmade/versions/2.0.0/install",
                         json={"source": "registry", "project_id": consumer["id"]}).json()
    assert run_demo(consumer["path"], result["demo"], ["--top", "3"]).endswith("args ['--top', '3']\n")
