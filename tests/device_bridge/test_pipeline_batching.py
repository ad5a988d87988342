"""Batching of crops (``batch = N`` on a model stage, docs/pipelines.md): up to N items in one
session call of a model whose batch dim is dynamic, answering as one call per item; refused by
name for a model whose spec fixes the batch dim."""

import shutil
from pathlib import Path

import pytest

from device_bridge.runtime import pipeline
from device_bridge.runtime.pipeline import PipelineError
from tests.device_bridge.test_pipeline import COINS, _convert
from tests.fakes import pipeline_models


@pytest.fixture(scope="module")
def chain(coins_pipeline: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("batching") / "chain"
    shutil.copytree(coins_pipeline.parent, folder)
    pipeline_models.batched_orientation(folder, _convert)
    return folder


def _with(folder: Path, stage: str, extra: str) -> pipeline.Pipeline:
    text = (folder / "pipeline.toml").read_text()
    old = '[[stages]]\nid = "orientation"\nmodel = "orientation.mnn"\n'
    assert old in text and stage == "orientation"
    return pipeline.parse(text.replace(old, f'[[stages]]\nid = "orientation"\n{extra}'), folder)


@pytest.mark.parametrize("batch", [2, 4, 64], ids=["batch-2", "batch-4", "batch-64"])
def test_batched_crops_answer_as_one_at_a_time(chain: Path, batch: int) -> None:
    plain = _with(chain, "orientation", 'model = "orientation_batched.mnn"\n')
    one = pipeline.Runner(plain).run(chain / COINS)
    many = pipeline.Runner(
        _with(chain, "orientation", f'model = "orientation_batched.mnn"\nbatch = {batch}\n')
    ).run(chain / COINS)
    crops = len(one["stages"][3]["items"])
    assert crops > batch or batch == 64  # the photo's coins: several calls, the last one short
    single = {s["id"]: s for s in one["stages"]}["orientation"]["items"]
    batched = {s["id"]: s for s in many["stages"]}["orientation"]["items"]
    assert len(batched) == len(single) == crops
    for a, b in zip(single, batched, strict=True):
        top_a, top_b = a["outputs"]["logits"]["top"], b["outputs"]["logits"]["top"]
        assert [t["label"] for t in top_a] == [t["label"] for t in top_b]
        assert [t["score"] for t in top_b] == pytest.approx([t["score"] for t in top_a], abs=1e-6)
    # What follows (turned crops, the recogniser's reading) is the same.
    assert [s["items"] for s in many["stages"][5:]] == [s["items"] for s in one["stages"][5:]]
    spans = [t for t in many["timeline"] if t["stage"] == "orientation"]
    assert [t["batch"] for t in spans] == [min(batch, crops - i) for i in range(0, crops, batch)]
    assert [t["item"] for t in spans] == list(range(0, crops, batch))


def test_a_fixed_batch_dim_or_a_bad_count_is_refused_by_name(chain: Path) -> None:
    with pytest.raises(PipelineError) as fixed:
        pipeline.Runner(_with(chain, "orientation", 'model = "orientation.mnn"\nbatch = 4\n'))
    assert fixed.value.where == "stage 'orientation'.batch"
    assert "fixed batch dim (1)" in fixed.value.reason
    for bad in ("0", "true", "'4'", "1000"):
        with pytest.raises(PipelineError) as refused:
            _with(chain, "orientation", f'model = "orientation_batched.mnn"\nbatch = {bad}\n')
        assert refused.value.where == "stages[3].batch", refused.value
