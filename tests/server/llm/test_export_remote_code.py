"""An export never runs a model's own code unless the instance allows it: a folder with an
``auto_map`` or Python files is refused before any worker starts, the worker refuses it again,
and a fence keeps transformers from running such code even though ``llmexport`` always passes
``trust_remote_code=True``; allowed, the code runs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.core.config import REPO_ROOT, Settings
from server.llm.prepare import worker_args
from server.modeltools.schemas import LlmExportArgs
from tests.plugin.tools import run_tool

# What a model's own code does here: leave a mark in the folder it runs in.
MARKING_CODE = ("from pathlib import Path\n"
                "from transformers import Qwen2Config\n"
                "Path('model-code-ran').write_text('yes')\n"
                "class XConfig(Qwen2Config):\n"
                "    pass\n")


def model_with_code(folder: Path) -> Path:
    """A Hugging Face-format folder whose config maps its classes to its own modules."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "model_type": "qwen2", "architectures": ["XModel"],
        "auto_map": {"AutoConfig": "configuration_x.XConfig",
                     "AutoModelForCausalLM": "modeling_x.XModel"}}))
    (folder / "configuration_x.py").write_text(MARKING_CODE)
    (folder / "modeling_x.py").write_text("raise SystemExit('modeling code ran')\n")
    (folder / "tokenizer.json").write_text("{}")
    return folder


def test_a_folder_with_its_own_code_is_refused_before_any_worker_starts(client: TestClient) -> None:
    project = client.post("/api/projects", json={"name": "llm", "template": "empty"}).json()
    root = Path(project["path"])
    model_with_code(root / "hf")
    (root / "hf" / "tokenizer_config.json").write_text(json.dumps(
        {"auto_map": {"AutoTokenizer": ["tokenization_x.XTokenizer", None]}}))
    (root / "hf" / "extra").mkdir()
    (root / "hf" / "extra" / "helpers.py").write_text("")
    url = f"/api/projects/{project['id']}/tools/llm-export"
    refused = client.post(url, json={"model_dir": "hf"})
    assert refused.status_code == 422, refused.text
    body = refused.json()
    assert body["code"] == "remote_code_refused"
    assert body["files"] == ["hf/config.json", "hf/tokenizer_config.json",
                             "hf/configuration_x.py", "hf/modeling_x.py", "hf/extra/helpers.py"]
    assert "hf/config.json" in body["detail"] and "hf/modeling_x.py" in body["detail"]
    assert "MNNWB_LLM_ALLOW_REMOTE_CODE" in body["detail"]
    assert client.get(f"/api/projects/{project['id']}/tool-runs").json() == []
    assert not (root / "hf-mnn-q4").exists()

    asked = client.post(url, json={"model_dir": "hf", "trust_remote_code": True})
    assert (asked.status_code, asked.json()["code"]) == (422, "remote_code_refused")
    assert "the server's setting" in asked.json()["detail"]


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().llm_allow_remote_code is False
    monkeypatch.setenv("MNNWB_LLM_ALLOW_REMOTE_CODE", "1")
    assert Settings().llm_allow_remote_code is True


def test_allowed_the_worker_is_told_to_trust_only_a_folder_with_code(tmp_path: Path) -> None:
    model_with_code(tmp_path / "hf")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    allowed = worker_args("llm-export", str(tmp_path), LlmExportArgs(model="hf"), True)
    assert allowed["trust_remote_code"] is True
    plain = worker_args("llm-export", str(tmp_path), LlmExportArgs(model="plain"), True)
    assert "trust_remote_code" not in plain


def test_the_worker_refuses_a_folder_with_code_it_was_not_told_to_trust(tmp_path: Path) -> None:
    """The folder may have gained code after the server looked: the worker looks again."""
    source = model_with_code(tmp_path / "hf")
    (tmp_path / "out").mkdir()
    outcome = run_tool("llm-export", {"model": str(source), "output": str(tmp_path / "out")},
                       tmp_path / "run")
    assert outcome.status == "failed"
    assert "hf/config.json" in (outcome.error or "") and "hf/modeling_x.py" in (outcome.error or "")
    assert not (tmp_path / "run" / "model-code-ran").exists()


FENCED_LOAD = """
import sys
from pathlib import Path
from server.llm.export import _fence
_fence(Path(sys.argv[1]))
from transformers import AutoConfig
try:
    AutoConfig.from_pretrained(sys.argv[1], trust_remote_code=True)
except PermissionError as exc:
    print("refused:", exc)
"""


def test_the_fence_keeps_transformers_from_running_a_models_code(tmp_path: Path) -> None:
    """As llmexport calls it: ``trust_remote_code=True`` on a folder with an ``auto_map``."""
    source = model_with_code(tmp_path / "hf")
    env = {**os.environ, "HF_MODULES_CACHE": str(tmp_path / "modules"), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", FENCED_LOAD, str(source)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "refused:" in done.stdout and "configuration_x.py" in done.stdout
    assert "is the model's own code" in done.stdout
    assert not (tmp_path / "model-code-ran").exists()


@pytest.mark.timeout(600)
def test_allowed_the_models_code_runs(tmp_path: Path) -> None:
    source = model_with_code(tmp_path / "hf")
    (tmp_path / "out").mkdir()
    args = {"model": str(source), "output": str(tmp_path / "out"), "trust_remote_code": True}
    run_tool("llm-export", args, tmp_path / "run", timeout=300,
             extra_env={"HF_MODULES_CACHE": str(tmp_path / "modules"), "HF_HUB_OFFLINE": "1"})
    assert (tmp_path / "run" / "model-code-ran").read_text() == "yes"
