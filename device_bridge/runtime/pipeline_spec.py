"""A pipeline's file (``pipeline.toml``, docs/pipelines.md) read and checked: its stages, how
they connect, their parameters; and per-stage variants laid over it. Nothing here opens a model.
"""

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from device_bridge import backends

FORMAT = 1
INPUT = "image"
STEP_PARAMS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "map_to_boxes": {
        "output": str,
        "threshold": (int, float),
        "min_area": int,
        "label": str,
        "min_score": (int, float),
        "unclip": (int, float),
        "reading_order": bool,
        "quads": bool,
    },
    "nms": {"iou": (int, float)},
    "crop": {"image": str, "pad": int},
    "rotate": {"by": str, "when_labels": list, "degrees": int, "min_score": (int, float)},
}
FITS = ("spec", "aspect")
USER_STEP = re.compile(r"[A-Za-z_][A-Za-z0-9_]*:[A-Za-z_][A-Za-z0-9_]*")
MODEL_FIELDS = {
    "id", "input", "model", "shape", "threads", "fit", "multiple", "max_side", "min_side", "batch",
}
MAX_BATCH = 256
MAX_STAGES = 64


class PipelineError(ValueError):
    """A pipeline that cannot run; ``where`` names the stage or field (``stages[2].input``)."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.reason = where, reason


@dataclass
class Stage:
    id: str
    input: str
    model: Path | None = None
    step: str | None = None
    shape: list[int] | None = None
    threads: int = 1
    fit: str = "spec"  # "aspect": PaddleOCR's resizing (preprocess.aspect_tensor)
    multiple: int = 1
    max_side: int | None = None
    min_side: int | None = None
    batch: int = 1  # items run together in one session call (a dynamic batch dim)
    backend: str = "CPU"
    precision: str = "normal"
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return "model" if self.model is not None else "step"


@dataclass
class Pipeline:
    name: str
    stages: list[Stage]
    folder: Path


def _stage(where: str, raw: Any, folder: Path, known: set[str]) -> Stage:
    if not isinstance(raw, dict):
        raise PipelineError(where, "expected a table")
    ident = raw.get("id")
    if not isinstance(ident, str) or not ident or ident == INPUT:
        raise PipelineError(f"{where}.id", f"every stage needs an id (not {INPUT!r})")
    if ident in known:
        raise PipelineError(f"{where}.id", f"{ident!r} is used twice")
    source = raw.get("input", INPUT)
    if source not in known and source != INPUT:
        raise PipelineError(f"{where}.input", f"{source!r} is not an earlier stage (or {INPUT!r})")
    model, step = raw.get("model"), raw.get("step")
    if (model is None) == (step is None):
        raise PipelineError(where, "a stage has either a model or a step")
    stage = Stage(id=ident, input=source)
    if model is not None:
        if not isinstance(model, str) or model.startswith("/") or ".." in Path(model).parts:
            raise PipelineError(f"{where}.model", f"{model!r} is not a path beside the pipeline")
        stage.model = folder / model
        unknown = sorted(set(raw) - MODEL_FIELDS)
        if unknown:
            raise PipelineError(f"{where}.{unknown[0]}", "unknown field of a model stage")
        if "shape" in raw:
            shape = raw["shape"]
            if not isinstance(shape, list) or not all(isinstance(d, int) and d > 0 for d in shape):
                raise PipelineError(f"{where}.shape", "every dim a positive integer")
            stage.shape = shape
        stage.threads = int(raw.get("threads", 1))
        batch = raw.get("batch", 1)
        if not isinstance(batch, int) or isinstance(batch, bool) or not 1 <= batch <= MAX_BATCH:
            raise PipelineError(f"{where}.batch", f"{batch!r} is not a count of items from 1 to {MAX_BATCH}")
        stage.batch = batch
        stage.fit = raw.get("fit", "spec")
        if stage.fit not in FITS:
            raise PipelineError(f"{where}.fit", f"{stage.fit!r} is not one of {', '.join(FITS)}")
        for key in ("multiple", "max_side", "min_side"):
            if key in raw:
                value = raw[key]
                if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1 << 14:
                    raise PipelineError(f"{where}.{key}", f"{value!r} is not a size in pixels")
                if stage.fit != "aspect":
                    raise PipelineError(f"{where}.{key}", 'only a stage with fit = "aspect" takes it')
                setattr(stage, key, value)
        return stage
    if isinstance(step, str) and USER_STEP.fullmatch(step):
        stage.step = step  # module:function, a .py beside the pipeline (pipeline_user.py)
        stage.params = {k: v for k, v in raw.items() if k not in ("id", "input", "step")}
        return stage
    if step not in STEP_PARAMS:
        raise PipelineError(
            f"{where}.step", f"{step!r} is not one of {', '.join(STEP_PARAMS)}, nor module:function"
        )
    stage.step = step
    for key, value in raw.items():
        if key in ("id", "input", "step"):
            continue
        kinds = STEP_PARAMS[step].get(key)
        if kinds is None:
            raise PipelineError(f"{where}.{key}", f"unknown parameter of {step}")
        if not isinstance(value, kinds) or (isinstance(value, bool) and kinds is not bool):
            raise PipelineError(f"{where}.{key}", f"{value!r} has the wrong type")
        if key in ("image", "by") and value not in known and value != INPUT:
            raise PipelineError(f"{where}.{key}", f"{value!r} is not an earlier stage")
        stage.params[key] = value
    if step == "rotate" and "by" in stage.params and "when_labels" not in stage.params:
        raise PipelineError(f"{where}.when_labels", "rotate by a classifier needs the labels that turn it")
    return stage


def parse(text: str, folder: Path) -> Pipeline:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PipelineError("pipeline", f"not valid TOML: {exc}") from None
    if data.get("format", FORMAT) != FORMAT:
        raise PipelineError("format", f"this workbench reads format {FORMAT}")
    raw = data.get("stages")
    if not isinstance(raw, list) or not raw or len(raw) > MAX_STAGES:
        raise PipelineError("stages", f"expected 1 to {MAX_STAGES} [[stages]] tables")
    known: set[str] = set()
    stages = []
    for index, entry in enumerate(raw):
        stage = _stage(f"stages[{index}]", entry, folder, known)
        known.add(stage.id)
        stages.append(stage)
    return Pipeline(str(data.get("name", folder.name)), stages, folder)


def load(path: Path) -> Pipeline:
    return parse(path.read_text(encoding="utf-8"), path.parent)




VARIANT_KEYS = ("model", "threads", "backend", "precision")


def _variant_value(where: str, key: str, value: Any, folder: Path) -> Any:
    if key == "model":
        if not isinstance(value, str) or not value.endswith(".mnn"):
            raise PipelineError(where, f"{value!r} is not an .mnn file")
        path = folder / value
        if value.startswith("/") or ".." in Path(value).parts or not path.resolve().is_relative_to(
            folder.resolve()
        ):
            raise PipelineError(where, f"{value!r} is outside the pipeline's folder")
        if not path.is_file():
            raise PipelineError(where, f"{value!r} is not a file beside the pipeline")
        return path
    if key == "threads":
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 64:
            raise PipelineError(where, f"{value!r} is not a thread count from 1 to 64")
        return value
    if key == "backend":
        found = backends.canonical(value) if isinstance(value, str) else None
        if found is None:
            raise PipelineError(where, f"{value!r} is not one of {', '.join(backends.NAMES)}")
        return found
    if value not in backends.PRECISION:
        raise PipelineError(where, f"{value!r} is not one of {', '.join(backends.PRECISION)}")
    return value


def with_variants(pipeline: Pipeline, variants: dict[str, dict[str, Any]]) -> Pipeline:
    """The pipeline with some model stages run differently (another model file beside it, other
    threads, backend or precision); a variant of a stage that does not exist, of a step, or with
    an unknown key or bad value is refused as ``variants.<stage>.<key>``."""
    stages = {stage.id: stage for stage in pipeline.stages}
    changed: dict[str, Stage] = {}
    for ident, fields in variants.items():
        stage = stages.get(ident)
        if stage is None:
            raise PipelineError(f"variants.{ident}", f"the pipeline has no stage {ident!r}")
        if stage.model is None:
            raise PipelineError(f"variants.{ident}", f"{ident!r} is a step; variants change model stages")
        if not isinstance(fields, dict) or not fields:
            raise PipelineError(f"variants.{ident}", f"expected some of {', '.join(VARIANT_KEYS)}")
        values = {}
        for key, value in fields.items():
            if key not in VARIANT_KEYS:
                raise PipelineError(f"variants.{ident}.{key}", f"not one of {', '.join(VARIANT_KEYS)}")
            values[key] = _variant_value(f"variants.{ident}.{key}", key, value, pipeline.folder)
        changed[ident] = dataclasses.replace(stage, **values)
    return dataclasses.replace(pipeline, stages=[changed.get(s.id, s) for s in pipeline.stages])
