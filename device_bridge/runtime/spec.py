"""The model spec: a model's inputs and outputs declared once, in ``<model file>.model.toml``
beside the model (``det.onnx`` → ``det.onnx.model.toml``), in the same ``[[inputs]]`` /
``[[outputs]]`` tables a market package's ``algorithm.toml`` holds.

Per input: ``shape`` as the model declares it (``-1`` for a dynamic dim) and ``default_shape``
filling those dims, ``dtype``, ``layout``, and for images ``color``, ``resize``, ``scale``,
``mean``, ``std`` (audio: ``sample_rate``). Per output: ``kind`` (what the numbers mean) and what
reading it needs (``labels``/``labels_file``, ``characters``/``characters_file``, ``threshold``).

A spec is plain data: parsing checks every field and raises ``SpecError`` naming the first bad
one (``inputs[0].mean: 3 values for 1 channel``), so a tool never runs on a half-read spec.
"""

import math
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

SUFFIX = ".model.toml"
FORMAT = 1
INPUT_KINDS = ("image", "audio", "tensor")
OUTPUT_KINDS = ("logits", "probabilities", "boxes", "text", "mask", "embedding", "tensor")
LAYOUTS = ("NCHW", "NHWC", "NC", "NCW", "NWC", "")
DTYPES = ("float32", "float16", "uint8", "int8", "int32", "int64")
COLORS = ("RGB", "BGR", "GRAY")
RESIZES = ("stretch", "letterbox", "center_crop")
MAX_DIMS = 8
MAX_ENTRIES = 64
MAX_LABELS = 100_000


class SpecError(ValueError):
    """A spec that cannot be used; ``where`` is the field (``inputs[0].shape``)."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.reason = where, reason


@dataclass
class InputSpec:
    name: str
    shape: list[int] = field(default_factory=list)
    default_shape: list[int] | None = None
    dtype: str = "float32"
    kind: str = "tensor"
    layout: str = ""
    color: str = "RGB"
    resize: str = "stretch"
    scale: float = 1.0
    mean: list[float] | None = None
    std: list[float] | None = None
    sample_rate: int | None = None
    description: str = ""

    @property
    def dynamic(self) -> list[int]:
        """Indexes of the dims the model leaves open."""
        return [i for i, d in enumerate(self.shape) if d <= 0]

    def run_shape(self) -> list[int] | None:
        """The shape to run with when the caller gives none: the declared one with the dynamic
        dims from ``default_shape``; None when a dynamic dim has no default."""
        if not self.dynamic:
            return list(self.shape)
        if self.default_shape is None:
            return None
        return list(self.default_shape)


@dataclass
class OutputSpec:
    name: str
    kind: str = "tensor"
    shape: list[int] = field(default_factory=list)
    dtype: str = "float32"
    labels: list[str] | None = None
    labels_file: str | None = None
    characters: str | None = None
    characters_file: str | None = None
    blank: int = 0
    threshold: float | None = None
    description: str = ""


@dataclass
class ModelSpec:
    inputs: list[InputSpec] = field(default_factory=list)
    outputs: list[OutputSpec] = field(default_factory=list)
    format: int = FORMAT

    def input(self, name: str) -> InputSpec | None:
        return next((i for i in self.inputs if i.name == name), None)

    def output(self, name: str) -> OutputSpec | None:
        return next((o for o in self.outputs if o.name == name), None)

    def default_shapes(self) -> dict[str, list[int]]:
        """Input name → the shape a run takes from the spec (inputs whose dynamic dims all have
        defaults)."""
        shapes = {}
        for spec in self.inputs:
            shape = spec.run_shape()
            if shape is not None:
                shapes[spec.name] = shape
        return shapes

    def to_dict(self) -> dict[str, Any]:
        def clean(entry: Any) -> dict[str, Any]:
            return {k: v for k, v in asdict(entry).items() if v is not None and v != ""}

        return {"format": self.format, "inputs": [clean(i) for i in self.inputs],
                "outputs": [clean(o) for o in self.outputs]}


def sidecar(model: Path) -> Path:
    """Where the spec of ``model`` lives."""
    return model.with_name(model.name + SUFFIX)


def _number(where: str, value: Any, *, integer: bool = False) -> Any:
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise SpecError(where, f"expected {'an integer' if integer else 'a number'}, got {value!r}")
    if not integer and not math.isfinite(value):
        raise SpecError(where, "must be finite")
    return value


def _text(where: str, value: Any, limit: int = 200) -> str:
    if not isinstance(value, str):
        raise SpecError(where, f"expected text, got {value!r}")
    if len(value) > limit:
        raise SpecError(where, f"longer than {limit} characters")
    return value


def _choice(where: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise SpecError(where, f"{value!r} is not one of {', '.join(a for a in allowed if a)}")
    return str(value)


def _dims(where: str, value: Any, *, open_allowed: bool) -> list[int]:
    if not isinstance(value, list) or len(value) > MAX_DIMS:
        raise SpecError(where, f"expected a list of at most {MAX_DIMS} integers")
    dims = [_number(f"{where}[{i}]", d, integer=True) for i, d in enumerate(value)]
    for i, d in enumerate(dims):
        if d == 0 or d < -1 or (d < 0 and not open_allowed) or d > 1 << 20:
            hint = " (-1 is a dynamic one)" if open_allowed else ""
            raise SpecError(f"{where}[{i}]", f"{d} is not a dim{hint}")
    return dims


def _floats(where: str, value: Any) -> list[float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value or len(value) > 4:
        raise SpecError(where, "expected 1 to 4 numbers (one per channel)")
    return [float(_number(f"{where}[{i}]", v)) for i, v in enumerate(value)]


def _relative(where: str, value: Any) -> str:
    text = _text(where, value, 1024)
    pure = PurePosixPath(text)
    if pure.is_absolute() or "\\" in text or any(p in ("", "..") for p in text.split("/")):
        raise SpecError(where, f"{text!r} is not a relative path beside the model")
    return text


def _table(where: str, value: Any, known: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SpecError(where, "expected a table")
    unknown = sorted(set(value) - known)
    if unknown:
        raise SpecError(f"{where}.{unknown[0]}", "unknown field")
    if not isinstance(value.get("name"), str) or not value["name"]:
        raise SpecError(f"{where}.name", "every entry needs a name")
    return value


def _channels(spec: InputSpec) -> int | None:
    layout, shape = spec.layout, spec.default_shape or spec.shape
    if len(shape) != 4 or layout not in ("NCHW", "NHWC"):
        return None
    count = shape[1] if layout == "NCHW" else shape[3]
    return count if count > 0 else None


def _input(where: str, raw: Any) -> InputSpec:
    raw = _table(where, raw, set(InputSpec.__dataclass_fields__))
    spec = InputSpec(name=_text(f"{where}.name", raw["name"]))
    spec.shape = _dims(f"{where}.shape", raw.get("shape", []), open_allowed=True)
    if "default_shape" in raw:
        spec.default_shape = _dims(f"{where}.default_shape", raw["default_shape"], open_allowed=False)
        if len(spec.default_shape) != len(spec.shape):
            raise SpecError(f"{where}.default_shape", f"has {len(spec.default_shape)} dims, "
                            f"shape has {len(spec.shape)}")
        for i, (fixed, given) in enumerate(zip(spec.shape, spec.default_shape, strict=True)):
            if fixed > 0 and given != fixed:
                raise SpecError(f"{where}.default_shape[{i}]", f"{given} contradicts the fixed dim {fixed}")
    spec.dtype = _choice(f"{where}.dtype", raw.get("dtype", "float32"), DTYPES)
    spec.kind = _choice(f"{where}.kind", raw.get("kind", "tensor"), INPUT_KINDS)
    spec.layout = _choice(f"{where}.layout", raw.get("layout", ""), LAYOUTS)
    spec.color = _choice(f"{where}.color", raw.get("color", "RGB"), COLORS)
    spec.resize = _choice(f"{where}.resize", raw.get("resize", "stretch"), RESIZES)
    spec.scale = float(_number(f"{where}.scale", raw.get("scale", 1.0)))
    if spec.scale == 0:
        raise SpecError(f"{where}.scale", "must not be 0")
    for key in ("mean", "std"):
        if raw.get(key) is not None:
            setattr(spec, key, _floats(f"{where}.{key}", raw[key]))
    if spec.std and any(s == 0 for s in spec.std):
        raise SpecError(f"{where}.std", "a standard deviation of 0 divides by zero")
    if raw.get("sample_rate") is not None:
        spec.sample_rate = _number(f"{where}.sample_rate", raw["sample_rate"], integer=True)
        if not 1 <= spec.sample_rate <= 1_000_000:
            raise SpecError(f"{where}.sample_rate", "must be 1 to 1,000,000 Hz")
    spec.description = _text(f"{where}.description", raw.get("description", ""), 1000)
    if spec.kind == "image":
        if spec.layout not in ("NCHW", "NHWC"):
            raise SpecError(f"{where}.layout", "an image input needs layout NCHW or NHWC")
        if len(spec.shape) != 4:
            raise SpecError(f"{where}.shape", "an image input has 4 dims (batch, channels, height, width)")
        channels = _channels(spec)
        wanted = 1 if spec.color == "GRAY" else 3
        if channels is not None and channels != wanted:
            raise SpecError(f"{where}.color",
                            f"{spec.color} gives {wanted} channel(s); the input has {channels}")
        for key in ("mean", "std"):
            values = getattr(spec, key)
            if values and len(values) not in (1, wanted):
                raise SpecError(f"{where}.{key}", f"{len(values)} values for {wanted} channel(s)")
    if spec.kind == "audio" and spec.sample_rate is None:
        raise SpecError(f"{where}.sample_rate", "an audio input needs its sample rate")
    return spec


def _output(where: str, raw: Any) -> OutputSpec:
    raw = _table(where, raw, set(OutputSpec.__dataclass_fields__))
    spec = OutputSpec(name=_text(f"{where}.name", raw["name"]))
    spec.kind = _choice(f"{where}.kind", raw.get("kind", "tensor"), OUTPUT_KINDS)
    spec.shape = _dims(f"{where}.shape", raw.get("shape", []), open_allowed=True)
    spec.dtype = _choice(f"{where}.dtype", raw.get("dtype", "float32"), DTYPES)
    if raw.get("labels") is not None:
        labels = raw["labels"]
        if not isinstance(labels, list) or len(labels) > MAX_LABELS:
            raise SpecError(f"{where}.labels", f"expected a list of at most {MAX_LABELS} names")
        spec.labels = [_text(f"{where}.labels[{i}]", v) for i, v in enumerate(labels)]
    for key in ("labels_file", "characters_file"):
        if raw.get(key) is not None:
            setattr(spec, key, _relative(f"{where}.{key}", raw[key]))
    if raw.get("characters") is not None:
        spec.characters = _text(f"{where}.characters", raw["characters"], MAX_LABELS)
    spec.blank = _number(f"{where}.blank", raw.get("blank", 0), integer=True)
    if raw.get("threshold") is not None:
        spec.threshold = float(_number(f"{where}.threshold", raw["threshold"]))
    spec.description = _text(f"{where}.description", raw.get("description", ""), 1000)
    if spec.labels is not None and spec.labels_file is not None:
        raise SpecError(f"{where}.labels_file", "give labels or labels_file, not both")
    if spec.characters is not None and spec.characters_file is not None:
        raise SpecError(f"{where}.characters_file", "give characters or characters_file, not both")
    return spec


def _entries(where: str, value: Any) -> list:
    if not isinstance(value, list) or len(value) > MAX_ENTRIES:
        raise SpecError(where, f"expected a list of at most {MAX_ENTRIES} tables")
    return value


def from_dict(data: Any) -> ModelSpec:
    """A spec from its parsed TOML (or JSON) form; raises ``SpecError``."""
    if not isinstance(data, dict):
        raise SpecError("spec", "expected a table")
    unknown = sorted(set(data) - {"format", "inputs", "outputs"})
    if unknown:
        raise SpecError(unknown[0], "unknown field")
    if data.get("format", FORMAT) != FORMAT:
        raise SpecError("format", f"this workbench reads format {FORMAT}")
    raw_inputs = _entries("inputs", data.get("inputs", []))
    raw_outputs = _entries("outputs", data.get("outputs", []))
    inputs = [_input(f"inputs[{i}]", raw) for i, raw in enumerate(raw_inputs)]
    outputs = [_output(f"outputs[{i}]", raw) for i, raw in enumerate(raw_outputs)]
    for where, names in (("inputs", [i.name for i in inputs]), ("outputs", [o.name for o in outputs])):
        for index, name in enumerate(names):
            if name in names[:index]:
                raise SpecError(f"{where}[{index}].name", f"{name!r} is declared twice")
    return ModelSpec(inputs, outputs)


def parse(text: str) -> ModelSpec:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError("spec", f"not valid TOML: {exc}") from None
    return from_dict(data)


def load(model: Path) -> ModelSpec | None:
    """The spec beside ``model``, None when it has none; a bad one raises ``SpecError``."""
    path = sidecar(model)
    if not path.is_file():
        return None
    return parse(path.read_text(encoding="utf-8"))


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        escaped = "".join(c if c >= " " or c == "\t" else f"\\u{ord(c):04x}" for c in escaped)
        return f'"{escaped}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def dumps(spec: ModelSpec) -> str:
    """The spec as TOML, in a stable order (``parse(dumps(s))`` gives ``s`` back)."""
    data = spec.to_dict()
    lines = [f"format = {data['format']}"]
    for key in ("inputs", "outputs"):
        for entry in data[key]:
            lines += ["", f"[[{key}]]"]
            lines += [f"{name} = {_toml_value(value)}" for name, value in entry.items()]
    return "\n".join(lines) + "\n"


def read_list(model: Path, relative: str) -> list[str]:
    """A labels or characters file named by the spec of ``model``: one entry per line, read from
    the model's folder (never above it)."""
    folder = model.parent.resolve()
    path = (folder / relative).resolve()
    if folder not in path.parents:
        raise SpecError(relative, "is outside the model's folder")
    return path.read_text(encoding="utf-8").splitlines()
