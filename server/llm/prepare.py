"""Project-relative folders of the MNN-LLM tools → the worker's absolute, confined paths."""

from pathlib import Path
from typing import Any

from server.core.errors import Invalid
from server.files.paths import resolve
from server.modeltools.schemas import LlmBenchArgs, LlmExportArgs, ToolArgs


def exported_folder(root: str, rel: str) -> Path:
    """An exported MNN-LLM folder (or its ``config.json``) inside the project."""
    path = resolve(root, rel)
    folder = path.parent if path.is_file() and path.name.endswith(".json") else path
    if not (folder / "config.json").is_file() or not (folder / "llm_config.json").is_file():
        raise Invalid(f"{rel} is not an exported MNN-LLM folder (no config.json and llm_config.json)",
                      code="bad_llm_model")
    return folder


def default_output(model_rel: str, args: LlmExportArgs) -> str:
    return f"{model_rel.rstrip('/')}-mnn-q{args.quant_bit}"


def _export_output(root: str, args: LlmExportArgs) -> str:
    rel = args.output or default_output(args.model, args)
    path = resolve(root, rel)
    if path.is_file():
        raise Invalid(f"{rel} is a file; the export writes a folder", code="bad_output")
    if path.is_dir() and any(path.iterdir()) and not (path / "llm_config.json").is_file():
        raise Invalid(f"{rel} holds other files; choose an empty or new folder", code="bad_output")
    if not path.parent.is_dir():
        raise Invalid(f"output folder {Path(rel).parent} does not exist", code="bad_output")
    path.mkdir(exist_ok=True)
    return str(path)


def worker_args(tool: str, root: str, args: ToolArgs) -> dict[str, Any]:
    worker = args.model_dump()
    if isinstance(args, LlmExportArgs):
        source = resolve(root, args.model)
        if not (source / "config.json").is_file():
            raise Invalid(f"{args.model} is not a model folder (no config.json)", code="bad_llm_model")
        worker["model"], worker["output"] = str(source), _export_output(root, args)
    elif isinstance(args, LlmBenchArgs):
        worker["model"] = str(exported_folder(root, args.model))
    return worker
