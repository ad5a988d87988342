"""The playground templates under "New project" run headless (``mnnwb playground run``) with a
model generated here in the place and with the inputs and outputs of the market model each
README names, and their drawing follows from the model's outputs as worked out by hand."""

import json
import re
from pathlib import Path

from fastapi.testclient import TestClient

from server.projects.templates import list_templates
from tests.device_bridge.test_playground import kit_calls
from tests.fakes.playground_templates import (
    face_model,
    ocr,
    orientation_model,
    photo,
    template_project,
)


def _drawn(calls: list[dict], call: str) -> list[dict]:
    return [c for c in calls if c["call"] == call]


def test_the_faces_template_draws_the_rect_and_key_points_of_each_face(tmp_path: Path) -> None:
    project = template_project(tmp_path, "playground-faces", "face-detection")
    assert json.loads((project / "app.mnnplayground").read_text())["applicationName"] == "demo"
    face_model(project / "market" / "face-detection" / "model.mnn")
    photo(project, "white.png", (255, 255, 255), (256, 256))
    photo(project, "black.png", (0, 0, 0), (256, 256))

    code, calls = kit_calls(project, "--photo", "white.png")
    assert code == 0, calls
    # the anchor's centre (5.5/16, 7.5/16) × 128 = (44, 60) in the input, × 2 on the 256² photo
    assert _drawn(calls, "drawRects") == [{"call": "drawRects", "frame": 0, "rects": [[56, 88, 64, 64]],
                                           "texts": ["face 1.00"], "lineColor": "lime", "lineWidth": 2}]
    [points] = _drawn(calls, "drawPoints")
    assert points["points"] == [[68 + 8 * i, 132] for i in range(6)]
    assert [c["text"] for c in _drawn(calls, "setLabel")] == ["1 face"]

    code, calls = kit_calls(project, "--photo", "black.png")
    assert code == 0, calls
    assert [c["text"] for c in _drawn(calls, "setLabel")] == ["0 faces"]
    assert _drawn(calls, "drawRects") == [] and _drawn(calls, "drawPoints") == []


def test_the_classify_template_labels_the_class_of_its_input(tmp_path: Path) -> None:
    project = template_project(tmp_path, "playground-classify", "document-orientation")
    orientation_model(project / "market" / "document-orientation" / "model.mnn")
    photo(project, "red.png", (255, 0, 0), (320, 240))
    photo(project, "blue.png", (0, 0, 255), (240, 320))
    labels = {}
    for name in ("red", "blue"):
        code, calls = kit_calls(project, "--photo", f"{name}.png")
        assert code == 0, calls
        labels[name] = [c["text"] for c in _drawn(calls, "setLabel")]
    # red is channel R (the model's third, 180°) once the template turns RGB into BGR
    assert labels["red"][0] == "180° 1.00"
    assert labels["blue"][0] == "0° 1.00"
    assert labels["blue"][1].startswith("90° 0.00 180° 0.00 270° 0.00")


def test_without_the_market_model_a_template_names_what_to_install(tmp_path: Path) -> None:
    for template, market_id in (("playground-faces", "face-detection"),
                                ("playground-classify", "document-orientation")):
        project = template_project(tmp_path, template, market_id)
        code, calls = kit_calls(project)
        assert code == 1
        [error] = _drawn(calls, "error")
        assert error["error"].startswith(f"FileNotFoundError: market/{market_id}/model.mnn is missing: "
                                         "install the market's")


PLAYGROUNDS = {"playground-faces": "face-detection", "playground-classify": "document-orientation",
               "playground-ocr": "pp-ocrv4-rec"}


def test_the_playground_templates_are_offered(client: TestClient) -> None:
    """Offered under "New project", each makes a playground app of the new project's name whose
    entry file exists and whose README says which market model to install."""
    offered = {t["name"]: t for t in client.get("/api/templates").json()}
    assert {t.name for t in list_templates()} == set(offered)
    assert offered["playground-faces"]["title"] == "Playground: faces"
    for template, model in PLAYGROUNDS.items():
        assert offered[template]["title"].startswith("Playground: ")
        made = client.post("/api/projects", json={"name": f"app-{model}", "template": template, "git": False})
        assert made.status_code == 201, made.text
        folder = Path(made.json()["path"])
        app = json.loads((folder / "app.mnnplayground").read_text())
        assert app == {"applicationName": f"app-{model}", "entryFile": "/main.py", "modelName": model}
        assert (folder / app["entryFile"].lstrip("/")).read_text().startswith('"""')
        assert model in (folder / "README.md").read_text()


def test_the_ocr_template_labels_the_text_the_recogniser_spells(tmp_path: Path) -> None:
    project, _ = ocr(tmp_path)  # a recogniser that spells red a, green b, blue c; stripes of them
    package = project / "market" / "text-reading"
    code, calls = kit_calls(project, "--photo", "line.png")
    assert code == 0, calls
    labels = [c["text"] for c in _drawn(calls, "setLabel")]
    assert labels[0] == "aabc"  # a repeat is read twice only with a blank between
    assert re.fullmatch(r"confidence (0\.9\d|1\.00)", labels[1])

    (package / "ppocr_keys.txt").unlink()
    code, calls = kit_calls(project, "--photo", "line.png")
    assert code == 1
    assert _drawn(calls, "error")[0]["error"] == (
        "FileNotFoundError: market/text-reading/ppocr_keys.txt is missing: install the market's "
        "Text reading into this project (see README.md)")
