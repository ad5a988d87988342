"""MNN-LLM export in the contained worker: files, fidelity, guards and clear refusals."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from device_bridge.llm.runtime import LoadedModel, Sampler
from tests.fakes.llm import Llms
from tests.plugin.tools import run_tool

PROMPT = [{"role": "user", "content": "Hello, how are you today?"}]
# Each export starts a process that imports torch and transformers: slow on a loaded machine.
pytestmark = pytest.mark.timeout(900)


def test_export_writes_the_runtime_folder_and_reports_it(llms: Llms) -> None:
    for folder in (llms.q16, llms.q4):
        names = {p.name for p in folder.iterdir()}
        assert {"config.json", "llm_config.json", "llm.mnn", "llm.mnn.weight", "tokenizer.mtok"} <= names
        assert "llm.mnn.json" not in names and "onnx" not in names
    assert (llms.q4 / "llm.mnn.weight").stat().st_size < (llms.q16 / "llm.mnn.weight").stat().st_size
    result = json.loads((llms.q4.parent / "run-q4" / "result.json").read_text())["result"]
    assert result["model_type"] == "qwen2"
    assert result["options"] == {"quant_bit": 4, "quant_block": 64, "lm_quant_bit": 4, "embedding": False}
    assert result["files"]["llm.mnn.weight"] == (llms.q4 / "llm.mnn.weight").stat().st_size
    # vocab 512 × hidden 64 twice (untied), two layers of attention + gated MLP + norms.
    assert result["parameters"] == 2 * 512 * 64 + 2 * (64 * 16 * 12 + 3 * 64 * 128 + 128) + 64


def test_greedy_tokens_of_the_16_bit_export_equal_hugging_face(llms: Llms) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(llms.source)
    ids = tokenizer.apply_chat_template(PROMPT, add_generation_prompt=True, tokenize=True,
                                        return_dict=False)
    hf = AutoModelForCausalLM.from_pretrained(llms.source)
    with torch.no_grad():
        out = hf.generate(torch.tensor([ids]), max_new_tokens=8, do_sample=False, eos_token_id=None)
    expected = out[0, len(ids):].tolist()

    model = LoadedModel(llms.q16, threads=1)
    assert model.prompt_ids(PROMPT) == ids
    assert model.generate(ids, 8, Sampler(), stop=False).tokens == expected


def test_export_opens_no_socket_and_runs_no_pip(llms: Llms, tmp_path: Path) -> None:
    """The worker under an audit hook, with a ``pip`` first on PATH that records any call."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    called = tmp_path / "pip-called"
    (bin_dir / "pip").write_text(f"#!/bin/sh\ntouch {called}\nexit 1\n")
    (bin_dir / "pip").chmod(0o755)
    audited = (
        "import runpy, sys\n"
        # each event is on disk as it happens: the worker may end with os._exit
        "seen = open('events.txt', 'w', buffering=1)\n"
        "sys.addaudithook(lambda e, a: seen.write(e + '\\n') if e.startswith(('socket.',"
        " 'subprocess.', 'os.system', 'os.posix_spawn', 'os.exec')) else None)\n"
        "sys.argv = ['worker', 'llm-export', 'args.json', 'result.json']\n"
        "runpy.run_module('server.modeltools.worker', run_name='__main__')\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "args.json").write_text(json.dumps({"model": str(llms.source), "output": str(out),
                                                    "quant_bit": 8}))
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run([sys.executable, "-c", audited], cwd=tmp_path, env=env, check=True, timeout=300,
                   capture_output=True)
    assert json.loads((tmp_path / "result.json").read_text())["ok"] is True
    assert (tmp_path / "events.txt").read_text() == ""
    assert not called.exists()
    assert (tmp_path / ".export.log").is_file()  # llmexport's own log stays in the run's folder


def test_an_unsupported_model_type_names_what_is_supported(llms: Llms, tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "model.safetensors"):
        (folder / name).write_bytes((llms.source / name).read_bytes())
    config = json.loads((llms.source / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "no-such-llm"}))
    (tmp_path / "out").mkdir()
    outcome = run_tool("llm-export", {"model": str(folder), "output": str(tmp_path / "out")},
                       tmp_path / "run", timeout=300)
    assert outcome.status == "failed"
    assert "'no-such-llm' is not supported" in (outcome.error or "")
    assert "qwen2" in (outcome.error or "") and "llama" in (outcome.error or "")


def test_a_folder_without_a_tokenizer_is_refused(llms: Llms, tmp_path: Path) -> None:
    folder = tmp_path / "bare"
    folder.mkdir()
    (folder / "config.json").write_text((llms.source / "config.json").read_text())
    (tmp_path / "out").mkdir()
    outcome = run_tool("llm-export", {"model": str(folder), "output": str(tmp_path / "out")},
                       tmp_path / "run")
    assert outcome.status == "failed"
    assert outcome.error == "bare has no tokenizer (tokenizer.json, tokenizer.model or vocab.json)"


def test_bench_reports_prefill_and_decode_per_prompt_length(llms: Llms, tmp_path: Path) -> None:
    args = {"model": str(llms.q4), "prompt_tokens": [16, 64], "gen_tokens": 8, "repeats": 2, "threads": 1}
    outcome = run_tool("llm-bench", args, tmp_path / "run")
    assert outcome.status == "succeeded", outcome.error
    cases = outcome.result["cases"]
    assert [c["prompt_tokens"] for c in cases] == [16, 64]
    for case in cases:
        for metric in ("prefill_tps", "decode_tps", "ttft_ms"):
            spread = case[metric]
            assert 0 < spread["min"] <= spread["median"] <= spread["max"]
