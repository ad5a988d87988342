"""Turn an API body (project-relative paths) into a worker's arguments (absolute, confined).

Every path is resolved inside the project with the files domain's confinement; inputs are given
the quick file checks and their input shapes checked (``shapes``), and outputs get a default
name next to the input — a fresh one when that file exists, unless the body says ``overwrite``.
"""

import re
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files.paths import relative, resolve
from server.modeltools import backends, shapes, specs
from server.modeltools.formats import (
    MODEL_SUFFIXES,
    BadModelFile,
    calibration_files,
    check_model_file,
)
from server.modeltools.schemas import (
    ARG_MODELS,
    BenchmarkArgs,
    CompareArgs,
    ConvertArgs,
    EvaluateArgs,
    PipelineArgs,
    QuantizeArgs,
    RuntimeArgs,
    ToolArgs,
    TryArgs,
    WritesModel,
)
from server.modeltools.shapes import Declared, ShapeError, Shapes, declared, with_labels

MODEL_INPUTS: dict[str, tuple[str, ...]] = {
    "convert": MODEL_SUFFIXES,
    "quantize": (".mnn",),
    "inspect": (".mnn", ".onnx", ".tflite", ".pb", ".caffemodel"),
    "compare": (".mnn",),
    "benchmark": (".mnn",),
    "try": (".mnn",),
}


def parse(tool: str, body: dict[str, Any]) -> ToolArgs:
    try:
        return ARG_MODELS[tool].model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise Invalid(f"{where}: {first['msg']}", code=ErrorCode.BAD_TOOL_ARGS) from None


def _model_file(root: str, rel: str) -> Path | None:
    """The model file a spec belongs to; None where the tool's own input check will refuse it."""
    try:
        model = resolve(root, rel)
    except Exception:  # the tool's own input check names a bad path
        return None
    return model if model.is_file() else None


def spec_shapes(tool: str, root: str, args: ToolArgs) -> tuple[ToolArgs, list[str]]:
    """``args`` with the model spec's default shape for each dynamic input they leave out, and
    the names of those inputs (the run records them as ``shapes_from_spec``)."""
    if tool not in MODEL_INPUTS or not hasattr(args, "input_shapes"):
        return args, []
    if isinstance(args, ConvertArgs) and not args.static:
        return args, []
    model = _model_file(root, args.model)
    if model is None:
        return args, []
    filled, taken = specs.fill_shapes(model, args.input_shapes)
    return (args.model_copy(update={"input_shapes": filled}) if taken else args), taken


def spec_preprocessing(root: str, args: ToolArgs) -> tuple[ToolArgs, list[str]]:
    """Quantize's image settings (colour order, mean, normal) from the model's spec where the
    request leaves them out, and the names of those taken (recorded as
    ``preprocessing_from_spec``): never MNN's defaults for a model that declares its own."""
    if not isinstance(args, QuantizeArgs) or args.input_type != "image":
        return args, []
    model = _model_file(root, args.model)
    if model is None:
        return args, []
    taken = specs.quantizer_preprocessing(model, set(args.model_fields_set))
    return (args.model_copy(update=taken) if taken else args), sorted(taken)


def _input(root: str, rel: str, allowed: tuple[str, ...]) -> str:
    path = resolve(root, rel)
    try:
        check_model_file(path, allowed)
    except BadModelFile as exc:
        raise Invalid(str(exc), code=ErrorCode.BAD_MODEL_FILE) from None
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


_NUMBERED = re.compile(r"^(?P<base>.+)-(?P<n>\d+)$")


def fresh_output(path: Path, taken: Collection[str]) -> Path:
    """``path``, or when that file exists (or a run still going will write it) the first free
    ``<stem>-2.mnn``, ``<stem>-3.mnn``, …: running a tool again never replaces its last model."""
    if not path.exists() and str(path) not in taken:
        return path
    stem = path.name[: -len(path.suffix)]
    numbered = _NUMBERED.match(stem)
    base, n = (numbered["base"], int(numbered["n"]) + 1) if numbered else (stem, 2)
    while True:
        candidate = path.with_name(f"{base}-{n}{path.suffix}")
        if not candidate.exists() and str(candidate) not in taken:
            return candidate
        n += 1


def _output(root: str, rel: str | None, model_rel: str, args: ToolArgs, taken: Collection[str]) -> str:
    rel = rel or default_output(model_rel, args)
    if not rel.lower().endswith(".mnn"):
        raise Invalid("output must be a .mnn file", code=ErrorCode.BAD_OUTPUT)
    path = resolve(root, rel)
    if not path.parent.is_dir():
        raise Invalid(f"output folder {Path(rel).parent} does not exist", code=ErrorCode.BAD_OUTPUT)
    if path.is_dir():
        raise Invalid(f"{rel} is a folder", code=ErrorCode.BAD_OUTPUT)
    if isinstance(args, WritesModel) and not args.overwrite:
        path = fresh_output(path, taken)
    return str(path)


def refuse(exc: ShapeError) -> Invalid:
    """A shape refusal as the API's 422, with the input and dim it names."""
    return Invalid(exc.detail, code=exc.code, **exc.where)


def checked_shapes(
    inputs: list[Declared] | None, given: Shapes | None, exempt: Collection[str] = ()
) -> Shapes | None:
    """The run's input shapes when the file told the inputs; None leaves it to the worker."""
    if inputs is None:
        return None
    try:
        return shapes.resolve(inputs, given, exempt)
    except ShapeError as exc:
        raise refuse(exc) from None


def _with_batch(inputs: list[Declared], given: Shapes | None, batch: int | None) -> Shapes | None:
    """``batch`` stands for a dynamic dim 0 (what the converter does with it) of an input that
    input_shapes leaves out; its other dynamic dims are still required."""
    filled = dict(given or {})
    for spec in inputs:
        if batch and spec.dims and spec.dims[0] is None and spec.name not in filled:
            rest = spec.dims[1:]
            filled[spec.name] = [batch] if None in rest else [batch, *(d for d in rest if d is not None)]
    return filled or None


def _run_shapes(args: ToolArgs, worker: dict[str, Any]) -> None:
    """Refuse a run that would meet a dynamic dim nobody gave, before any worker starts."""
    if isinstance(args, BenchmarkArgs | QuantizeArgs | TryArgs):
        checked_shapes(declared(worker["model"]), args.input_shapes)
    elif isinstance(args, CompareArgs):
        labelled = declared(worker["reference"]) if worker["reference"].lower().endswith(".onnx") else None
        inputs = declared(worker["model"])
        sizes = checked_shapes(inputs and with_labels(inputs, labelled), args.input_shapes, worker["inputs"])
        if sizes is not None and labelled is not None:
            shared = [spec for spec in labelled if spec.name in sizes]
            checked_shapes(shared, {spec.name: sizes[spec.name] for spec in shared})
    elif isinstance(args, ConvertArgs) and args.static:
        inputs = declared(worker["model"])
        if inputs is not None:
            sizes = checked_shapes(inputs, _with_batch(inputs, args.input_shapes, args.batch))
            if any(spec.dynamic for spec in inputs):  # a fixed model converts as it always did
                worker["input_shapes"] = sizes


def _tool_specific(tool: str, root: str, args: ToolArgs, worker: dict[str, Any]) -> None:
    if isinstance(args, RuntimeArgs):
        backends.require(args.backend)
    if isinstance(args, ConvertArgs) and args.prototxt:
        worker["prototxt"] = _input(root, args.prototxt, (".prototxt",))
    if isinstance(args, QuantizeArgs) and args.calibration is not None:
        folder = resolve(root, args.calibration)
        try:
            calibration_files(folder, args.input_type)
        except BadModelFile as exc:
            raise Invalid(str(exc), code=ErrorCode.BAD_CALIBRATION) from None
        worker["calibration"] = str(folder)
    if isinstance(args, QuantizeArgs) and args.dataset is not None:
        from server.modeltools import evaluate_args

        worker["dataset"] = evaluate_args.quantize_dataset(root, args, worker["model"])
    if isinstance(args, TryArgs):
        worker["input"] = str(_existing(root, args.input))
    if isinstance(args, CompareArgs):
        worker["reference"] = _input(root, args.reference, (".onnx", ".mnn"))
    if isinstance(args, CompareArgs | BenchmarkArgs):
        worker["inputs"] = {name: str(_existing(root, rel)) for name, rel in (args.inputs or {}).items()}


def _existing(root: str, rel: str) -> Path:
    path = resolve(root, rel)
    if not path.is_file():
        raise Invalid(f"{rel}: file not found", code=ErrorCode.BAD_INPUT_FILE)
    return path


def _pipeline_args(root: str, args: PipelineArgs) -> dict[str, Any]:
    """A pipeline's file checked here (its TOML and how its stages connect; its models open in
    the worker), its inputs resolved inside the project."""
    from device_bridge.runtime import pipeline

    path = _existing(root, args.model)
    if path.suffix.lower() != ".toml":
        raise Invalid(f"{args.model}: a pipeline is a .toml file", code=ErrorCode.BAD_PIPELINE)
    try:
        pipeline.with_variants(pipeline.load(path), args.variants or {})
    except (pipeline.PipelineError, UnicodeDecodeError) as exc:
        where = getattr(exc, "where", "pipeline")
        raise Invalid(f"pipeline: {exc}", code=ErrorCode.BAD_PIPELINE, where=where) from None
    inputs = []
    for rel in args.inputs:
        found = resolve(root, rel)
        if not found.exists():
            raise Invalid(f"{rel}: file not found", code=ErrorCode.BAD_INPUT_FILE)
        inputs.append(str(found))
    worker = {"model": str(path), "inputs": inputs, "root": str(Path(root).resolve()), "output": None,
              "variants": args.variants, "device_id": args.device_id}
    if args.dataset is not None:
        evaluation = _evaluation(root, path, args)
        images = [str(Path(root).resolve() / name) for name in evaluation["labels"]]
        worker |= {"evaluation": evaluation, "inputs": images}
    return worker


def _evaluation(root: str, path: Path, args: PipelineArgs) -> dict[str, Any]:
    """A labelled set read here, so an unlabeled one or a metric that does not fit the pipeline is
    refused before any worker starts."""
    from device_bridge.runtime import pipeline, pipeline_eval

    dataset = str(args.dataset)
    folder = resolve(root, dataset)
    if not folder.exists():
        raise Invalid(f"{dataset}: not found", code=ErrorCode.BAD_DATASET)
    try:
        parsed = pipeline.with_variants(pipeline.load(path), args.variants or {})
        return pipeline_eval.evaluation(parsed, folder, Path(root), args.metric)
    except pipeline_eval.EvalError as exc:
        if exc.where == "metric" or exc.where.startswith("stages["):
            code = ErrorCode.BAD_METRIC if exc.where == "metric" else ErrorCode.BAD_PIPELINE
            raise Invalid(str(exc), code=code, where=exc.where) from None
        raise Invalid(f"{dataset}: {exc}", code=ErrorCode.BAD_DATASET, where=exc.where) from None


# Tools whose arguments another package prepares, by the prefix of their name: the LLM tools
# (``llm-``) are ``server.llm.prepare.worker_args``, registered by ``create_app``; the LLM package
# sits above the model tools and uses their runner (docs/architecture.md, "Layers").
Preparer = Callable[[str, str, ToolArgs, bool], dict[str, Any]]
PREPARERS: dict[str, Preparer] = {}


def register_preparer(prefix: str, preparer: Preparer) -> None:
    """Let ``preparer`` turn the bodies of the tools named ``<prefix>…`` into worker arguments."""
    PREPARERS[prefix] = preparer


def _registered(tool: str) -> Preparer | None:
    return next((p for prefix, p in PREPARERS.items() if tool.startswith(prefix)), None)


def worker_args(tool: str, root: str, args: ToolArgs, allow_remote_code: bool = False,
                taken: Collection[str] = ()) -> dict[str, Any]:
    """The worker's arguments: the same fields with absolute, checked paths.

    ``allow_remote_code`` is ``Settings.llm_allow_remote_code``: whether an LLM export may run a
    model's own code. ``taken``: outputs (absolute) that runs still going will write."""
    preparer = _registered(tool)
    if preparer is not None:
        return preparer(tool, root, args, allow_remote_code)
    if isinstance(args, PipelineArgs):
        return _pipeline_args(root, args)
    if isinstance(args, EvaluateArgs):
        from server.modeltools import evaluate_args

        return evaluate_args.worker_args(root, args)
    worker = args.model_dump()
    worker["model"] = _input(root, args.model, MODEL_INPUTS[tool])
    if tool in ("convert", "quantize"):
        worker["output"] = _output(root, args.output, args.model, args, taken)
    _tool_specific(tool, root, args, worker)
    _run_shapes(args, worker)
    return worker


def relative_result(root: str, result: dict[str, Any]) -> dict[str, Any]:
    """Report output paths relative to the project, as the API speaks."""
    for key in ("output", "input"):
        if isinstance(result.get(key), str):
            result = {**result, key: relative(root, Path(result[key]))}
    return result
