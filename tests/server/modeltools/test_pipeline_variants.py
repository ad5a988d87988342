"""Per-stage variants of a pipeline through the API and the command line, and two runs compared:
a variant with another model file (the orientation classifier with its labels the other way
round) makes that stage, and no earlier one, the first to diverge; bad variants are refused by
name before a run."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.device_bridge.test_pipeline import COINS
from tests.fakes.photos import photo
from tests.server.modeltools.conftest import wait_for_run

FLIPPED = "orientation-flipped.mnn"


@pytest.fixture
def project(client: TestClient, coins_pipeline: Path) -> dict:
    project = client.post("/api/projects", json={"name": "chain", "template": "empty"}).json()
    root = Path(project["path"])
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(coins_pipeline, root / "pipeline.toml")
    (root / "photos").mkdir()
    shutil.copy(photo(COINS), root / "photos" / COINS)
    shutil.copy(root / "orientation.mnn", root / FLIPPED)
    spec = (root / "orientation.mnn.model.toml").read_text()
    assert spec.count('"0", "180"') == 1, spec
    (root / f"{FLIPPED}.model.toml").write_text(spec.replace('"0", "180"', '"180", "0"'))
    (root.parent / "elsewhere.mnn").write_bytes((root / "orientation.mnn").read_bytes())
    return project


def _run(client: TestClient, project: dict, **extra) -> dict:
    body = {"pipeline": "pipeline.toml", "inputs": ["photos"], **extra}
    started = client.post(f"/api/projects/{project['id']}/pipelines/run", json=body)
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"], timeout=120)
    assert run["status"] == "succeeded", run["error"]
    return run


def _stage(run: dict, ident: str) -> dict:
    return next(s for s in run["result"]["inputs"][0]["stages"] if s["id"] == ident)


def _labels(run: dict) -> list[str]:
    return [i["outputs"]["logits"]["top"][0]["label"] for i in _stage(run, "orientation")["items"]]


def test_a_variant_model_makes_its_stage_the_first_to_diverge(client: TestClient, project: dict) -> None:
    plain = _run(client, project)
    flipped = _run(client, project, variants={"orientation": {"model": FLIPPED, "threads": 2}})
    assert flipped["args"]["variants"] == {"orientation": {"model": FLIPPED, "threads": 2}}
    flip = {"0": "180", "180": "0"}
    assert _labels(flipped) == [flip[label] for label in _labels(plain)]
    assert _stage(flipped, "boxes")["items"] == _stage(plain, "boxes")["items"]

    answer = client.post(f"/api/projects/{project['id']}/pipelines/compare",
                         json={"a": plain["id"], "b": flipped["id"]})
    assert answer.status_code == 200, answer.text
    compared = answer.json()
    assert compared["inputs"] == [f"photos/{COINS}"] and compared["unmatched"] == []
    first = compared["first_divergence"]
    assert first["stage"] == "orientation" and first["input"] == f"photos/{COINS}"
    assert "top label" in first["reason"]
    diverged = {s["id"]: bool(s["diverged"]) for s in compared["stages"]}
    assert diverged["image"] is diverged["detect"] is diverged["boxes"] is diverged["crops"] is False
    # Every crop is turned the other way, so what is read differs too.
    assert diverged["upright"] is True
    for side, run in (("a", plain), ("b", flipped)):
        assert compared["end_to_end"][side] == run["result"]["summary"]["end_to_end"]
        assert {s["id"]: s[side] for s in compared["stages"]} == run["result"]["summary"]["stages"]

    same = client.post(f"/api/projects/{project['id']}/pipelines/compare",
                       json={"a": plain["id"], "b": _run(client, project)["id"]}).json()
    assert same["first_divergence"] is None and not any(s["diverged"] for s in same["stages"])


@pytest.mark.parametrize(
    ("variants", "where", "reason"),
    [
        ({"orientation": {"model": "../elsewhere.mnn"}}, "variants.orientation.model", "outside"),
        ({"ocr": {"threads": 2}}, "variants.ocr", "no stage 'ocr'"),
        ({"boxes": {"threads": 2}}, "variants.boxes", "is a step"),
        ({"read": {"model": "missing.mnn"}}, "variants.read.model", "not a file"),
        ({"read": {"backend": "TPU"}}, "variants.read.backend", "not one of"),
        ({"read": {}}, "variants.read", "expected some of"),
    ],
)
def test_a_bad_variant_is_refused_by_name(
    client: TestClient, project: dict, variants: dict, where: str, reason: str
) -> None:
    refused = client.post(f"/api/projects/{project['id']}/pipelines/run",
                          json={"pipeline": "pipeline.toml", "inputs": ["photos"], "variants": variants})
    assert refused.status_code == 422 and refused.json()["code"] == "bad_pipeline", refused.text
    assert refused.json()["where"] == where and reason in refused.json()["detail"]


def test_runs_of_two_pipelines_are_not_compared(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    (root / "other.toml").write_text((root / "pipeline.toml").read_text())
    plain = _run(client, project)
    other = _run(client, project, pipeline="other.toml")
    refused = client.post(f"/api/projects/{project['id']}/pipelines/compare",
                          json={"a": plain["id"], "b": other["id"]})
    assert refused.status_code == 422 and refused.json()["code"] == "bad_comparison"


def test_the_command_line_takes_variants(project: dict) -> None:
    root = Path(project["path"])
    argv = [sys.executable, "-m", "server.cli", "pipeline", "run", str(root / "pipeline.toml"),
            "--input", str(root / "photos" / COINS), "--json"]
    plain = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    flipped = subprocess.run(argv + ["--variant", f"orientation.model={FLIPPED}"],
                             capture_output=True, text=True, timeout=120)
    assert plain.returncode == flipped.returncode == 0, plain.stderr + flipped.stderr
    runs = [{"result": {"inputs": [json.loads(done.stdout)]}} for done in (plain, flipped)]
    assert _labels(runs[1]) == [{"0": "180", "180": "0"}[label] for label in _labels(runs[0])]
    outside = subprocess.run(argv + ["--variant", "orientation.model=../elsewhere.mnn"],
                             capture_output=True, text=True, timeout=120)
    assert outside.returncode == 2 and "variants.orientation.model" in outside.stderr
    assert "outside the pipeline's folder" in outside.stderr
    malformed = subprocess.run(argv + ["--variant", "orientation=fast"], capture_output=True, text=True,
                               timeout=120)
    assert malformed.returncode == 2 and "STAGE.KEY=VALUE" in malformed.stderr


def test_an_int8_recogniser_from_the_quantizer_diverges_only_where_its_text_does(
    client: TestClient, project: dict
) -> None:
    quantized = client.post(f"/api/projects/{project['id']}/tools/quantize", json={
        "model": "recogniser.mnn", "output": "recogniser-int8.mnn", "calibration": "photos"})
    assert quantized.status_code == 202, quantized.text
    assert wait_for_run(client, quantized.json()["id"], timeout=300)["status"] == "succeeded"
    fp32 = _run(client, project)
    int8 = _run(client, project, variants={"read": {"model": "recogniser-int8.mnn"}})
    compared = client.post(f"/api/projects/{project['id']}/pipelines/compare",
                           json={"a": fp32["id"], "b": int8["id"]}).json()
    stages = {s["id"]: s for s in compared["stages"]}
    before = ("image", "detect", "boxes", "crops", "orientation", "upright")
    assert not any(stages[i]["diverged"] for i in before)
    texts = [[i["outputs"]["logits"]["text"] for i in _stage(run, "read")["items"]] for run in (fp32, int8)]
    assert bool(stages["read"]["diverged"]) == (texts[0] != texts[1])
    assert compared["first_divergence"] == (
        {"stage": "read", **stages["read"]["diverged"][0]} if texts[0] != texts[1] else None)
    assert stages["read"]["b"] == int8["result"]["summary"]["stages"]["read"]
