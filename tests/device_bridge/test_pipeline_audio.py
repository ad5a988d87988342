"""A ``.wav`` as a pipeline's input (docs/pipelines.md#audio-inputs): a real audio model fed the
clip read with ``wave``; a rate or channel count the first stage's spec does not take is refused
by name, never resampled or mixed down."""

from pathlib import Path

import pytest

from device_bridge.runtime import pipeline, pipeline_batch
from device_bridge.runtime.preprocess import InputFileError
from tests.device_bridge.test_pipeline import COINS, _convert
from tests.fakes import audio_models


@pytest.fixture(scope="module")
def loudness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return audio_models.build(tmp_path_factory.mktemp("audio") / "chain", _convert)


def _top(result: dict) -> tuple[str, float]:
    top = result["stages"][1]["items"][0]["outputs"]["logits"]["top"][0]
    return top["label"], top["score"]


def test_a_wav_runs_through_an_audio_model(loudness: Path, tmp_path: Path) -> None:
    runner = pipeline.Runner(pipeline.load(loudness))
    loud = runner.run(audio_models.wav(tmp_path / "loud.wav", audio_models.tone(1.5, 0.8)))
    quiet = runner.run(audio_models.wav(tmp_path / "quiet.wav", audio_models.tone(0.5, 0.01)))
    assert _top(loud)[0] == "loud" and _top(quiet)[0] == "quiet", (loud, quiet)
    assert loud["audio"] == {"kind": "audio", "samples": 24000, "sample_rate": 16000, "seconds": 1.5}
    assert loud["stages"][0]["items"] == [loud["audio"]] and "image" not in loud
    assert loud["stages"][1]["memory_mb"] > 0
    batch = pipeline_batch.run_batch(loudness, [tmp_path], tmp_path)
    labels = [(r["input"], _top(r)[0]) for r in batch["inputs"]]
    assert labels == [("loud.wav", "loud"), ("quiet.wav", "quiet")]


def test_a_clip_the_first_stage_does_not_take_is_refused_by_name(
    loudness: Path, coins_pipeline: Path, tmp_path: Path
) -> None:
    runner = pipeline.Runner(pipeline.load(loudness))
    slow = audio_models.wav(tmp_path / "slow.wav", audio_models.tone(1, 0.5, 8000), rate=8000)
    with pytest.raises(InputFileError) as refused:
        runner.run(slow)
    assert refused.value.reason == "sampled at 8000 Hz, the input takes 16000 Hz ('wave' of loudness.mnn)"
    stereo = audio_models.wav(tmp_path / "stereo.wav", audio_models.tone(1, 0.5), channels=2)
    with pytest.raises(InputFileError) as refused:
        runner.run(stereo)
    assert refused.value.reason == "has 2 channels; input 'wave' of loudness.mnn takes one (mono)"
    clip = audio_models.wav(tmp_path / "a.wav", audio_models.tone(1, 0.5))
    with pytest.raises(InputFileError, match="first stage takes no audio input"):
        pipeline.Runner(pipeline.load(coins_pipeline)).run(clip)
    with pytest.raises(pipeline.PipelineError, match="reads clips; 'image' gives Picture"):
        runner.run(coins_pipeline.parent / COINS)
