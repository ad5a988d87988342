"""Project-relative folders of the MNN-LLM tools → the worker's absolute, confined paths.

An export never runs a model's own code unless the instance allows it
(``Settings.llm_allow_remote_code``): a source folder that holds any is refused here, before a
worker starts, and the worker is told ``trust_remote_code`` only when it is allowed
(docs/llm.md, "A model's own code").
"""

import json
import os
from pathlib import Path
from typing import Any

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files.paths import resolve
from server.modeltools.schemas import LlmBenchArgs, LlmExportArgs, ToolArgs

SETTING = "MNNWB_LLM_ALLOW_REMOTE_CODE"
NAMED = 20  # files named in a refusal's text; its ``files`` field lists them all


class RemoteCodeRefused(Invalid):
    code = ErrorCode.REMOTE_CODE_REFUSED


def exported_folder(root: str, rel: str) -> Path:
    """An exported MNN-LLM folder (or its ``config.json``) inside the project."""
    path = resolve(root, rel)
    folder = path.parent if path.is_file() and path.name.endswith(".json") else path
    if not (folder / "config.json").is_file() or not (folder / "llm_config.json").is_file():
        raise Invalid(f"{rel} is not an exported MNN-LLM folder (no config.json and llm_config.json)",
                      code=ErrorCode.BAD_LLM_MODEL)
    return folder


def default_output(model_rel: str, args: LlmExportArgs) -> str:
    return f"{model_rel.rstrip('/')}-mnn-q{args.quant_bit}"


def _export_output(root: str, args: LlmExportArgs) -> str:
    rel = args.output or default_output(args.model, args)
    path = resolve(root, rel)
    if path.is_file():
        raise Invalid(f"{rel} is a file; the export writes a folder", code=ErrorCode.BAD_OUTPUT)
    if path.is_dir() and any(path.iterdir()) and not (path / "llm_config.json").is_file():
        raise Invalid(f"{rel} holds other files; choose an empty or new folder", code=ErrorCode.BAD_OUTPUT)
    if not path.parent.is_dir():
        raise Invalid(f"output folder {Path(rel).parent} does not exist", code=ErrorCode.BAD_OUTPUT)
    path.mkdir(exist_ok=True)
    return str(path)


def _has_auto_map(value: Any) -> bool:
    if isinstance(value, dict):
        return "auto_map" in value or any(_has_auto_map(v) for v in value.values())
    return isinstance(value, list) and any(_has_auto_map(v) for v in value)


def _maps_code(path: Path) -> bool:
    """Whether a JSON file names classes of the model's own (``auto_map``), at any depth."""
    try:
        return _has_auto_map(json.loads(path.read_bytes()))
    except (ValueError, RecursionError):
        return False  # not JSON transformers could read either


def remote_code(folder: Path) -> list[str]:
    """The files, relative to ``folder``, that make transformers run a model's own code: the
    JSON files at its top with an ``auto_map`` (``config.json``, ``tokenizer_config.json``…)
    and every Python file, at any depth. Links are not followed."""
    found = [p.name for p in sorted(folder.glob("*.json")) if p.is_file() and _maps_code(p)]
    for current, dirs, files in os.walk(folder):
        dirs.sort()
        found += [Path(current, name).relative_to(folder).as_posix() for name in sorted(files)
                  if name.lower().endswith(".py")]
    return found


def remote_code_refusal(model_rel: str, found: list[str]) -> RemoteCodeRefused:
    names = [f"{model_rel.rstrip('/')}/{name}" for name in found]
    more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
    return RemoteCodeRefused(
        f"{model_rel} holds code of the model's own that an export would run "
        f"({', '.join(names[:NAMED])}{more}); this server runs none unless an administrator "
        f"allows it ({SETTING}=1)", files=names)


def _export_args(root: str, args: LlmExportArgs, allow_remote_code: bool) -> dict[str, Any]:
    if "trust_remote_code" in args.model_fields_set:
        raise RemoteCodeRefused(f"trust_remote_code is the server's setting ({SETTING}), "
                                "not a field of a request")
    source = resolve(root, args.model)
    if not (source / "config.json").is_file():
        raise Invalid(f"{args.model} is not a model folder (no config.json)", code=ErrorCode.BAD_LLM_MODEL)
    found = remote_code(source)
    if found and not allow_remote_code:
        raise remote_code_refusal(args.model, found)
    worker = args.model_dump()
    worker["model"], worker["output"] = str(source), _export_output(root, args)
    if found:
        worker["trust_remote_code"] = True
    return worker


def worker_args(tool: str, root: str, args: ToolArgs, allow_remote_code: bool = False) -> dict[str, Any]:
    """The worker's arguments; ``allow_remote_code`` is ``Settings.llm_allow_remote_code``."""
    if isinstance(args, LlmExportArgs):
        return _export_args(root, args, allow_remote_code)
    worker = args.model_dump()
    if isinstance(args, LlmBenchArgs):
        worker["model"] = str(exported_folder(root, args.model))
    return worker
