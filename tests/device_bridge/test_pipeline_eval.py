"""Labelled sets read in each of their formats, refused by name when they cannot be used, and
top-1 accuracy scored from what a classifier stage gave (device_bridge/runtime/pipeline_eval.py)."""

import json
from pathlib import Path

import pytest

from device_bridge.runtime import pipeline_eval
from tests.fakes.photos import photo

COINS = "coins.png"


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    folder = tmp_path / "set"
    folder.mkdir()
    for name in ("a.png", "b.png"):
        (folder / name).write_bytes(photo(COINS).read_bytes())
    return folder


def test_a_jsonl_set_is_read_with_text_or_label(labelled: Path) -> None:
    rows = [{"file": "a.png", "text": "one, two"}, {"file": "b.png", "label": "cat"}]
    (labelled / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    name, labels = pipeline_eval.read_labels(labelled)
    assert name == "labels.jsonl"
    assert {p.name: v for p, v in labels.items()} == {"a.png": "one, two", "b.png": "cat"}


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({}, "no labels file"),
        ({"labels.csv": "file,text\na.png,x\nb.png,y\n", "labels.tsv": "file\ttext\n"}, "two labels files"),
        ({"labels.csv": "file,text\na.png,x\na.png,y\nb.png,z\n"}, "row 2: a.png is labelled twice"),
        ({"labels.csv": "file,text\na.png,x\n../b.png,y\n"}, "labels.csv row 2: ../b.png is not an image"),
        ({"labels.csv": "file,text\na.png,x\nb.png\n"}, "labels.csv row 2: b.png: no text or label"),
        ({"labels.jsonl": '{"file": "a.png", "text": "x"}\n[1]\n'}, "labels.jsonl line 2: not an object"),
        ({"labels.jsonl": '{"file": "a.png", "text": "x"}\n{nope\n'}, "labels.jsonl line 2: not JSON"),
    ],
)
def test_a_set_that_cannot_be_used_is_refused_by_name(labelled: Path, files: dict, says: str) -> None:
    for name, text in files.items():
        (labelled / name).write_text(text)
    with pytest.raises(pipeline_eval.EvalError) as raised:
        pipeline_eval.read_labels(labelled)
    assert says in str(raised.value), raised.value


def _run(name: str, labels: list[str]) -> dict:
    top = [{"kind": "classes", "top": [{"label": lab, "score": 0.9}]} for lab in labels]
    items = [{"kind": "model", "outputs": {"prob": output}} for output in top]
    return {"input": name, "ms": 5.0, "stages": [{"id": "classify", "items": items}]}


def test_top1_accuracy_counts_the_samples_whose_top_label_is_expected() -> None:
    result = {"inputs": [_run("set/a.png", ["cat"]), _run("set/b.png", ["dog"])],
              "failed": [{"input": "set/c.png", "reason": "not an image"}],
              "summary": {"end_to_end": {"median_ms": 5.0}}}
    evaluation = {"dataset": "set", "labels_file": "labels.csv", "metric": "accuracy",
                  "labels": {"set/a.png": "cat", "set/b.png": "cat", "set/c.png": "cat"}}
    scored = pipeline_eval.score(result, evaluation)
    assert (scored["metric"], scored["count"], scored["median_ms"]) == ("accuracy", 3, 5.0)
    assert scored["value"] == scored["exact_match"] == pytest.approx(1 / 3)
    assert [(s["got"], s["score"], s["reason"]) for s in scored["samples"]] == [
        ("cat", 1.0, None), ("dog", 0.0, None), (None, 0.0, "not an image"),
    ]
