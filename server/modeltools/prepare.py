"""Turn an API body (project-relative paths) into a worker's arguments (absolute, confined).

Every path is resolved inside the project with the files domain's confinement; inputs are given
the quick file checks, and outputs get a default name next to the input.
"""

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from server.core.errors import Invalid
from server.files.paths import relative, resolve
from server.modeltools.formats import (
    MODEL_SUFFIXES,
    BadModelFile,
    calibration_files,
    check_model_file,
)
from server.modeltools.schemas import (
    ARG_MODELS,
    CompareArgs,
    ConvertArgs,
    QuantizeArgs,
    ToolArgs,
)

MODEL_INPUTS: dict[str, tuple[str, ...]] = {
    "convert": MODEL_SUFFIXES,
    "quantize": (".mnn",),
    "inspect": (".mnn", ".onnx", ".tflite", ".pb", ".caffemodel"),
    "compare": (".mnn",),
    "benchmark": (".mnn",),
}


def parse(tool: str, body: dict[str, Any]) -> ToolArgs:
    try:
        return ARG_MODELS[tool].model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise Invalid(f"{where}: {first['msg']}", code="bad_tool_args") from None


def _input(root: str, rel: str, allowed: tuple[str, ...]) -> str:
    path = resolve(root, rel)
    try:
        check_model_file(path, allowed)
    except BadModelFile as exc:
        raise Invalid(str(exc), code="bad_model_file") from None
    return str(path)


def default_output(model: str, args: ToolArgs) -> str:
    """``model.mnn``, ``model.fp16.mnn``, ``model.wq4b32.mnn``, ``model.int8.mnn``, …"""
    tags = []
    if isinstance(args, ConvertArgs):
        if args.fp16:
            tags.append("fp16")
        if args.weight_quant_bits:
            block = f"b{args.weight_quant_block}" if args.weight_quant_block else ""
            tags.append(f"wq{args.weight_quant_bits}{block}")
        if args.static:
            tags.append("static")
        if args.batch:
            tags.append(f"batch{args.batch}")
    if isinstance(args, QuantizeArgs):
        tags.append("int8")
    path = Path(model)
    candidate = path.with_name(".".join([path.stem, *tags, "mnn"]))
    if candidate == path:
        candidate = path.with_name(f"{path.stem}.converted.mnn")
    return str(candidate)


def _output(root: str, rel: str | None, model_rel: str, args: ToolArgs) -> str:
    rel = rel or default_output(model_rel, args)
    if not rel.lower().endswith(".mnn"):
        raise Invalid("output must be a .mnn file", code="bad_output")
    path = resolve(root, rel)
    if not path.parent.is_dir():
        raise Invalid(f"output folder {Path(rel).parent} does not exist", code="bad_output")
    if path.is_dir():
        raise Invalid(f"{rel} is a folder", code="bad_output")
    return str(path)


def _tool_specific(tool: str, root: str, args: ToolArgs, worker: dict[str, Any]) -> None:
    if isinstance(args, ConvertArgs) and args.prototxt:
        worker["prototxt"] = _input(root, args.prototxt, (".prototxt",))
    if isinstance(args, QuantizeArgs):
        folder = resolve(root, args.calibration)
        try:
            calibration_files(folder, args.input_type)
        except BadModelFile as exc:
            raise Invalid(str(exc), code="bad_calibration") from None
        worker["calibration"] = str(folder)
    if isinstance(args, CompareArgs):
        worker["reference"] = _input(root, args.reference, (".onnx", ".mnn"))
        worker["inputs"] = {name: str(_existing(root, rel)) for name, rel in (args.inputs or {}).items()}


def _existing(root: str, rel: str) -> Path:
    path = resolve(root, rel)
    if not path.is_file():
        raise Invalid(f"{rel}: file not found", code="bad_input_file")
    return path


def worker_args(tool: str, root: str, args: ToolArgs, allow_remote_code: bool = False) -> dict[str, Any]:
    """The worker's arguments: the same fields with absolute, checked paths.

    ``allow_remote_code`` is ``Settings.llm_allow_remote_code``: whether an LLM export may run a
    model's own code."""
    if tool.startswith("llm-"):
        from server.llm import prepare as llm_prepare

        return llm_prepare.worker_args(tool, root, args, allow_remote_code)
    worker = args.model_dump()
    worker["model"] = _input(root, args.model, MODEL_INPUTS[tool])
    if tool in ("convert", "quantize"):
        worker["output"] = _output(root, args.output, args.model, args)
    _tool_specific(tool, root, args, worker)
    return worker


def relative_result(root: str, result: dict[str, Any]) -> dict[str, Any]:
    """Report output paths relative to the project, as the API speaks."""
    if isinstance(result.get("output"), str):
        result = {**result, "output": relative(root, Path(result["output"]))}
    return result
