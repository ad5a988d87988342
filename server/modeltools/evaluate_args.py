"""Evaluate's arguments, and quantize's ``dataset``, checked on the server before a worker
starts: the dataset's layout, the metric, each model's file, spec and shapes (``evaluation.plan``)
and the backend, each refusal a 422 naming what to fix (docs/datasets.md)."""

from pathlib import Path
from typing import Any

from device_bridge.runtime import dataset_layouts, datasets
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files.paths import resolve
from server.modeltools import backends, evaluation, shapes
from server.modeltools.errors import ToolFailed
from server.modeltools.formats import BadModelFile, check_model_file
from server.modeltools.schemas import EvaluateArgs, QuantizeArgs

MODEL_SUFFIXES = (".onnx", ".tflite", ".mnn")


def _refuse(exc: ToolFailed) -> Invalid:
    return Invalid(str(exc), code=exc.code or ErrorCode.BAD_TOOL_ARGS, **exc.where)


def dataset(root: str, rel: str) -> tuple[Path, str, str]:
    """The dataset's absolute path, task and input kind; 422 ``not_a_dataset`` naming the
    layouts when ``rel`` is none."""
    path = resolve(root, rel)
    try:
        _, task, input_kind = dataset_layouts.peek(path)
    except datasets.DatasetError as exc:
        raise Invalid(f"{rel}: {exc.reason}", code=ErrorCode.NOT_A_DATASET) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise Invalid(f"{rel}: cannot be read ({exc})", code=ErrorCode.NOT_A_DATASET) from None
    return path, task, input_kind


def _model(root: str, rel: str) -> Path:
    path = resolve(root, rel)
    try:
        check_model_file(path, MODEL_SUFFIXES)
    except BadModelFile as exc:
        raise Invalid(str(exc), code=ErrorCode.BAD_MODEL_FILE) from None
    return path


def worker_args(root: str, args: EvaluateArgs) -> dict[str, Any]:
    path, task, input_kind = dataset(root, args.dataset)
    try:
        metric = evaluation.metric_kind(args.metric, task)
    except ToolFailed as exc:
        raise _refuse(exc) from None
    script = None
    if metric == "script":
        script = resolve(root, args.metric or "")
        if not script.is_file():
            raise Invalid(f"metric script {args.metric} not found", code=ErrorCode.BAD_METRIC)
    inputs: set[str] = set()
    models = []
    for rel in args.models:
        model = _model(root, rel)
        declared = shapes.declared(model)
        inputs.update(d.name for d in declared or [])
        try:
            evaluation.plan(model, task, input_kind, metric, args.input_shapes, declared)
        except ToolFailed as exc:
            raise _refuse(exc) from None
        models.append(str(model))
    unknown = sorted(set(args.input_shapes or {}) - inputs)
    if unknown and inputs:
        raise Invalid(f"input_shapes names {unknown[0]!r}, which no model has; their inputs are "
                      f"{sorted(inputs)}", code=shapes.MISMATCH, input=unknown[0])
    backends.require(args.backend)
    worker = args.model_dump()
    worker.update(models=models, dataset=str(path), metric=str(script) if script else args.metric,
                  root=str(Path(root).resolve()))
    return worker


def quantize_dataset(root: str, args: QuantizeArgs, model: str) -> str:
    """Quantize's dataset: an image dataset whose train split calibrates, and on whose val split
    the float and the int8 model are evaluated after; the float model needs a spec for that."""
    path, task, input_kind = dataset(root, args.dataset or "")
    if input_kind != "image":
        raise Invalid(f"{args.dataset}: its samples are {input_kind}s; quantize calibrates with images "
                      "(give a calibration folder of sequences instead)", code=ErrorCode.NOT_A_DATASET)
    try:
        evaluation.plan(Path(model), task, input_kind, evaluation.metric_kind(None, task), args.input_shapes,
                        shapes.declared(model))
    except ToolFailed as exc:
        raise Invalid(f"the accuracy check after quantizing: {exc}", code=exc.code or ErrorCode.BAD_TOOL_ARGS,
                      **exc.where) from None
    return str(path)
