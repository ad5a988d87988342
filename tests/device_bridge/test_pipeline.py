"""Pipelines (``device_bridge/runtime/pipeline.py``): a detector → orientation → recogniser chain
of real exported models run on a real photograph, stage by stage; bad pipelines refused by name."""

import shutil
from pathlib import Path

import pytest

from device_bridge.runtime import pipeline
from device_bridge.runtime.pipeline import PipelineError
from tests.fakes import pipeline_models
from tests.fakes.photos import photo
from tests.plugin.tools import run_tool

COINS = "coins.png"  # scikit-image's photo of 24 coins on a dark ground, 384 × 303 greyscale


def _convert(source: Path, target: Path) -> None:
    outcome = run_tool(
        "convert", {"model": str(source), "output": str(target)}, target.parent / f"run-{target.stem}"
    )
    assert outcome.status == "succeeded", outcome.error


def build_coins_pipeline(folder: Path) -> Path:
    """The chain's models converted into ``folder``, with the photo; the session's one is the
    ``coins_pipeline`` fixture of tests/conftest.py."""
    path = pipeline_models.build(folder, _convert)
    shutil.copy(photo(COINS), folder / COINS)
    return path


def test_a_chain_of_three_models_reads_every_coin(coins_pipeline: Path) -> None:
    runner = pipeline.Runner(pipeline.load(coins_pipeline))
    result = runner.run(coins_pipeline.parent / COINS)
    stages = {s["id"]: s for s in result["stages"]}
    assert list(stages) == ["image", "detect", "boxes", "crops", "orientation", "upright", "read"]
    boxes = stages["boxes"]["items"][0]["boxes"]
    assert 15 <= len(boxes) <= 30, len(boxes)  # the photo's 24 coins, a few touching ones merged
    assert all(0 <= b["box"][0] < b["box"][2] <= 384 and 0 <= b["box"][1] < b["box"][3] <= 303 for b in boxes)
    # One crop, one orientation and one reading per box; each crop is what its box covers.
    assert len(stages["crops"]["items"]) == len(stages["orientation"]["items"]) == len(boxes)
    assert len(stages["read"]["items"]) == len(boxes)
    for box, crop in zip(boxes, stages["crops"]["items"], strict=True):
        assert crop["x"] == max(0, int(box["box"][0]) - 2) and crop["y"] == max(0, int(box["box"][1]) - 2)
    turned = [u["rotated"] for u in stages["upright"]["items"]]
    labels = [o["outputs"]["logits"]["top"][0]["label"] for o in stages["orientation"]["items"]]
    assert turned == [180 if label == "180" else 0 for label in labels]
    texts = [r["outputs"]["logits"]["text"] for r in stages["read"]["items"]]
    assert all(set(text) <= set("abcd") for text in texts)
    # The stages' times add up to the whole (the runtime's own bookkeeping is all that is left).
    assert sum(s["ms"] for s in result["stages"]) <= result["ms"]
    assert sum(s["ms"] for s in result["stages"]) >= 0.9 * result["ms"]
    # A second run of the same pipeline answers the same.
    again = runner.run(coins_pipeline.parent / COINS)
    assert [s["items"] for s in again["stages"]] == [s["items"] for s in result["stages"]]


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("[[stages]]\nid = 'a'\nstep = 'blur'", "stages[0].step", "not one of"),
        ("[[stages]]\nid = 'a'\nmodel = 'x.mnn'\ninput = 'b'", "stages[0].input", "not an earlier stage"),
        ("[[stages]]\nid = 'a'\nmodel = '../x.mnn'", "stages[0].model", "beside the pipeline"),
        ("[[stages]]\nid = 'a'\nmodel = 'x.mnn'\nstep = 'crop'", "stages[0]", "either a model or a step"),
        ("[[stages]]\nid = 'a'\nstep = 'crop'\n[[stages]]\nid = 'a'\nstep = 'nms'", "stages[1].id", "twice"),
        ("[[stages]]\nid = 'a'\nstep = 'nms'\niou = 'high'", "stages[0].iou", "wrong type"),
        ("[[stages]]\nid = 'a'\nstep = 'rotate'\nby = 'image'", "stages[0].when_labels", "labels"),
        ("stages = []", "stages", "1 to"),
    ],
)
def test_a_bad_pipeline_is_refused_by_name(text: str, where: str, reason: str, tmp_path: Path) -> None:
    with pytest.raises(PipelineError) as raised:
        pipeline.parse(text, tmp_path)
    assert raised.value.where == where and reason in raised.value.reason, raised.value


def test_a_model_without_a_spec_or_a_shape_is_refused(coins_pipeline: Path, tmp_path: Path) -> None:
    shutil.copy(coins_pipeline.parent / "recogniser.mnn", tmp_path / "bare.mnn")
    with pytest.raises(PipelineError, match="has no spec"):
        pipeline.Runner(pipeline.parse("[[stages]]\nid = 'r'\nmodel = 'bare.mnn'", tmp_path))
    shutil.copy(coins_pipeline.parent / "recogniser.mnn", tmp_path / "open.mnn")
    spec = (
        (coins_pipeline.parent / "recogniser.mnn.model.toml")
        .read_text()
        .replace("default_shape = [1, 3, 32, 64]\n", "")
    )
    (tmp_path / "open.mnn.model.toml").write_text(spec)
    with pytest.raises(PipelineError, match="neither the stage nor the spec gives a shape"):
        pipeline.Runner(pipeline.parse("[[stages]]\nid = 'r'\nmodel = 'open.mnn'", tmp_path))
    runner = pipeline.Runner(
        pipeline.parse("[[stages]]\nid = 'r'\nmodel = 'open.mnn'\nshape = [1, 3, 32, 96]", tmp_path)
    )
    result = runner.run(photo(COINS))
    assert result["stages"][1]["items"][0]["outputs"]["logits"]["kind"] == "text"


def test_each_model_stage_says_its_session_memory(coins_pipeline: Path, tmp_path: Path) -> None:
    """A model stage's ``memory_mb`` is its MNN session's: there and positive for each model,
    none for a step; a bigger model in the same stage takes more; the run adds them up."""
    folder = tmp_path / "chain"
    shutil.copytree(coins_pipeline.parent, folder)
    loaded = pipeline.load(folder / "pipeline.toml")
    result = pipeline.Runner(loaded).run(folder / COINS)
    memory = {s["id"]: s["memory_mb"] for s in result["stages"]}
    assert all(memory[s] > 0 for s in ("detect", "orientation", "read")), memory
    assert [memory[s] for s in ("image", "boxes", "crops", "upright")] == [None] * 4
    assert result["memory_mb"] == pytest.approx(memory["detect"] + memory["orientation"] + memory["read"])
    assert result["peak_rss_mb"] > result["memory_mb"]

    pipeline_models.wide_orientation(folder, _convert)
    wide = pipeline.with_variants(loaded, {"orientation": {"model": "orientation_wide.mnn"}})
    bigger = {s["id"]: s["memory_mb"] for s in pipeline.Runner(wide).run(folder / COINS)["stages"]}
    assert bigger["orientation"] > 2 * memory["orientation"], (bigger, memory)
    assert bigger["detect"] == memory["detect"]


def test_a_stop_ends_the_batch_between_inputs_or_stages(coins_pipeline: Path, tmp_path: Path) -> None:
    from device_bridge.runtime import pipeline_batch

    for index in range(3):
        shutil.copy(coins_pipeline.parent / COINS, tmp_path / f"{index}.png")
    asked: list[int] = []

    def stop_at(call: int) -> bool:
        asked.append(call)
        return len(asked) >= call

    # Asked once before each input and once before each of its 6 stages: call 10 is the second
    # input's third stage, so that input ends unfinished and only the first counts.
    result = pipeline_batch.run_batch(coins_pipeline, [tmp_path], tmp_path, stop=lambda: stop_at(10))
    assert result["stopped"] == {"done": 1, "given": 3} and len(asked) == 10
    assert [e["input"] for e in result["inputs"]] == ["0.png"]
    assert result["summary"]["stages"]["read"]["median_ms"] > 0
    # Stopped before the first input: nothing done, and that is no error.
    asked.clear()
    nothing = pipeline_batch.run_batch(coins_pipeline, [tmp_path], tmp_path, stop=lambda: stop_at(1))
    assert nothing["stopped"] == {"done": 0, "given": 3} and nothing["inputs"] == []
    # Never stopped: every input, and no ``stopped``.
    whole = pipeline_batch.run_batch(coins_pipeline, [tmp_path], tmp_path, stop=lambda: False)
    assert len(whole["inputs"]) == 3 and "stopped" not in whole
