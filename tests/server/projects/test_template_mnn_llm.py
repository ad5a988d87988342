"""The mnn-llm template's chat.py on a real tiny export: answers, metrics, artifact, guidance."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from device_bridge.llm.runtime import LoadedModel, Sampler
from server.projects.templates import render_template
from tests.fakes.llm import Llms

METRIC_PREFIX = "MNNWB_METRIC "
SYSTEM = "You are a helpful assistant."


def _run(project: Path, out_dir: Path, *args: str, stdin: str = "", **env: str):
    done = subprocess.run(
        [sys.executable, "chat.py", *args], cwd=project, input=stdin, capture_output=True,
        text=True, timeout=120, env={**os.environ, "MNNWB_OUTPUT_DIR": str(out_dir), **env},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    metrics = [json.loads(line.removeprefix(METRIC_PREFIX)) for line in done.stdout.splitlines()
               if line.startswith(METRIC_PREFIX)]
    answers = [json.loads(line) for line in (out_dir / "answers.jsonl").read_text().splitlines()]
    return done.stdout, metrics, answers


@pytest.fixture
def project(tmp_path: Path) -> Path:
    render_template("mnn-llm", tmp_path / "project", "demo")
    return tmp_path / "project"


def test_prompts_from_the_command_line_get_the_greedy_answers(project: Path, tmp_path: Path,
                                                               llms: Llms) -> None:
    prompts = ["Hello?", "What runs on a phone?"]
    _, metrics, answers = _run(project, tmp_path / "out", *prompts, "--model", str(llms.q4),
                               "--max-new-tokens", "16", "--threads", "1")
    model = LoadedModel(llms.q4, threads=1)
    for prompt, answer in zip(prompts, answers, strict=True):
        ids = model.prompt_ids([{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}])
        expected = model.generate(ids, 16, Sampler())
        assert answer["prompt"] == prompt and answer["answer"] == expected.text
        assert answer["prompt_tokens"] == len(ids) and answer["generated_tokens"] == len(expected.tokens)
    assert [m["step"] for m in metrics] == [1, 2]
    assert all(m["decode_tps"] > 0 and m["prefill_tps"] > 0 for m in metrics)
    assert [m["generated_tokens"] for m in metrics] == [a["generated_tokens"] for a in answers]


def test_prompts_from_stdin_and_the_model_from_the_environment(project: Path, tmp_path: Path,
                                                               llms: Llms) -> None:
    _, metrics, answers = _run(project, tmp_path / "out", "--max-new-tokens", "4",
                               stdin="first\n\nsecond\n", MNNWB_LLM_MODEL=str(llms.q16))
    assert [a["prompt"] for a in answers] == ["first", "second"]
    assert [m["step"] for m in metrics] == [1, 2]
    assert all(a["generated_tokens"] <= 4 for a in answers)


def test_without_a_model_it_says_how_to_export_one(project: Path, tmp_path: Path) -> None:
    stdout, metrics, answers = _run(project, tmp_path / "out", "Hello?")
    assert "No exported model at" in stdout and "right-click a Hugging Face-format folder" in stdout
    assert metrics == [{"step": 0, "answered": 0}] and answers == []


def test_the_script_stands_alone() -> None:
    """It runs on a device without the workbench: only the standard library, numpy and MNN."""
    source = Path(__file__).resolve().parents[3] / "server/projects/templates/mnn-llm/files/chat.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"numpy", "MNN"}
