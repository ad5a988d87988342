"""A pipeline evaluated on a paired device: a real agent process runs the PP-OCRv4 pipeline
(tests/fakes/ppocr.py) on the pushed labelled set, and the server scores its answer as it scores
a run here — the same figure, the same wrong sample."""

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import LiveServer
from tests.device_bridge.test_ppocr_pipeline import LINES, RENDERED, TURNED, distance
from tests.server.modeltools.test_pipeline_device import _finished, _post, device  # noqa: F401 - a fixture

pytestmark = pytest.mark.timeout(600)
READS = " ".join(LINES)
WRONG = "MNN Workbench 2025 Pipelines on device"


def test_an_evaluation_on_a_device_scores_its_readings(
    live_server: LiveServer, ppocr_pipeline: Path, device: tuple  # noqa: F811
) -> None:
    project = _post(live_server, "/api/projects", {"name": "ocr-device-eval", "template": "empty"}).json()
    root = Path(project["path"])
    (root / "ocr").mkdir()
    for path in ppocr_pipeline.parent.iterdir():
        if path.is_file() and path.suffix in (".mnn", ".toml", ".txt"):
            shutil.copy(path, root / "ocr" / path.name)
    (root / "labelled").mkdir()
    shutil.copy(ppocr_pipeline.parent / RENDERED, root / "labelled" / RENDERED)
    shutil.copy(ppocr_pipeline.parent / TURNED, root / "labelled" / TURNED)
    rows = [{"file": RENDERED, "text": WRONG}, {"file": TURNED, "text": " ".join(LINES[::-1])}]
    (root / "labelled" / "labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    device_id, _agent = device
    body = {"pipeline": "ocr/pipeline.toml", "dataset": "labelled", "device_id": device_id}
    started = _post(live_server, f"/api/projects/{project['id']}/pipelines/evaluate", body)
    assert started.status_code == 202, started.text
    run = _finished(live_server, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    assert run["result"]["device"]["id"] == device_id
    evaluation = run["result"]["evaluation"]
    total = len(WRONG) + len(READS)
    assert evaluation["value"] == pytest.approx(1 - distance(READS, WRONG) / total)
    assert (evaluation["labels_file"], evaluation["exact_match"]) == ("labels.jsonl", 0.5)
    wrong = next(s for s in evaluation["samples"] if not s["exact"])
    assert (wrong["input"], wrong["expected"], wrong["got"]) == (f"labelled/{RENDERED}", WRONG, READS)
