"""A ``.wav`` pipeline run on a paired device (a real agent process) answers what a run here
answers (docs/pipelines.md#audio-inputs)."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from device_bridge.runtime import pipeline
from tests.conftest import LiveServer
from tests.device_bridge.harness import AgentProcess
from tests.device_bridge.test_pipeline import _convert
from tests.fakes import audio_models
from tests.server.modeltools.test_pipeline_device import _finished, _get, _post
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def device(live_server: LiveServer, tmp_path: Path) -> Iterator[str]:
    code = _post(live_server, "/api/devices/pairings", {"name": "pixel"}).json()["token"]
    agent = AgentProcess(live_server.url, tmp_path / "agent", code, "pixel")
    try:
        listed = wait_until(lambda: [d for d in _get(live_server, "/api/devices").json() if d["online"]],
                            what="the agent to come online")
        yield listed[0]["id"]
    finally:
        agent.kill()


def test_a_wav_pipeline_on_a_device_answers_as_here(
    live_server: LiveServer, device: str, tmp_path: Path
) -> None:
    built = audio_models.build(tmp_path / "built", _convert)
    project = _post(live_server, "/api/projects", {"name": "sound", "template": "empty"}).json()
    root = Path(project["path"])
    shutil.copytree(built.parent, root / "chain")
    (root / "clips").mkdir()
    audio_models.wav(root / "clips" / "loud.wav", audio_models.tone(1.5, 0.8))
    audio_models.wav(root / "clips" / "quiet.wav", audio_models.tone(0.5, 0.01))
    here = pipeline.Runner(pipeline.load(root / "chain" / "pipeline.toml"))
    runs = {}
    for where, extra in (("here", {}), ("device", {"device_id": device})):
        body = {"pipeline": "chain/pipeline.toml", "inputs": ["clips"], **extra}
        started = _post(live_server, f"/api/projects/{project['id']}/pipelines/run", body)
        assert started.status_code == 202, started.text
        run = _finished(live_server, started.json()["id"])
        assert run["status"] == "succeeded", run["error"]
        runs[where] = run["result"]
    assert runs["device"]["device"]["id"] == device
    for where, result in runs.items():
        assert [r["input"] for r in result["inputs"]] == ["clips/loud.wav", "clips/quiet.wav"], where
        for ran in result["inputs"]:
            expected = here.run(root / ran["input"])
            assert ran["audio"] == expected["audio"], where
            assert [s["items"] for s in ran["stages"]] == [s["items"] for s in expected["stages"]], where
    labels = [r["stages"][1]["items"][0]["outputs"]["logits"]["top"][0]["label"]
              for r in runs["device"]["inputs"]]
    assert labels == ["loud", "quiet"]
