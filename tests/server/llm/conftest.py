"""A tiny language model made here, exported once per session through the real worker."""

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm import build_model
from tests.server.modeltools.conftest import run_tool


@dataclass(frozen=True)
class Llms:
    source: Path
    q16: Path
    q4: Path


def export(source: Path, output: Path, bits: int) -> Path:
    output.mkdir(parents=True)
    args = {"model": str(source), "output": str(output), "quant_bit": bits}
    outcome = run_tool("llm-export", args, output.parent / f"run-{output.name}", timeout=300)
    assert outcome.status == "succeeded", outcome.error
    return output


@pytest.fixture(scope="session")
def llms(tmp_path_factory: pytest.TempPathFactory) -> Llms:
    folder = tmp_path_factory.mktemp("llm")
    source = build_model(folder / "tiny-qwen2")
    return Llms(source, export(source, folder / "q16", 16), export(source, folder / "q4", 4))
