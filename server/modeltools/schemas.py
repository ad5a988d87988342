"""Argument models of the model tools, shared by the HTTP API and the worker.

Through the API, paths are project-relative; the service resolves them to absolute paths inside
the project before the worker sees them. Field names follow the API contract (docs/model-tools.md).
"""

from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

ToolName = Literal[
    "convert", "quantize", "inspect", "compare", "benchmark", "diff", "llm-export", "llm-bench", "try",
    "pipeline", "evaluate",
]

PathStr = Annotated[str, Field(min_length=1, max_length=4096)]
OpName = Annotated[str, Field(min_length=1, max_length=256)]
Dim = Annotated[int, Field(ge=1, le=1_000_000)]
# input name → its whole shape; required for every dynamic dim (docs/model-tools.md)
InputShapes = Annotated[
    dict[OpName, Annotated[list[Dim], Field(min_length=1, max_length=8)]], Field(max_length=256)
]
_SHAPES_HELP = "input name → shape, e.g. {\"image\": [1, 3, 640, 640]}; needed for dynamic dims"


# MNN's backends (device_bridge/backends.py NAMES); a run on one MNN lacks is refused
Backend = Literal["CPU", "OpenCL", "Vulkan", "CUDA", "Metal", "CoreML", "NNAPI"]
Precision = Literal["normal", "high", "low", "low_bf16"]


class RuntimeArgs(BaseModel):
    """Where and how MNN runs the model: its backend, CPU threads, precision and power mode."""

    backend: Backend = "CPU"
    threads: int = Field(default=1, ge=1, le=64, description="CPU threads (a GPU backend ignores it)")
    precision: Precision = "normal"
    power: Literal["normal", "high", "low"] = "normal"


class WritesModel(BaseModel):
    """A tool that writes a model: an existing output gets a fresh name unless ``overwrite``."""

    overwrite: bool = False


class ToolArgs(BaseModel):
    """Common to every tool: the model to work on and, where the tool writes one, its output."""

    model_config = ConfigDict(extra="forbid")

    model: PathStr
    output: PathStr | None = None


class ConvertArgs(ToolArgs, WritesModel):
    """ONNX / TFLite / TF frozen graph / Caffe / MNN → .mnn (``framework`` from the extension)."""

    framework: Literal["ONNX", "TFLITE", "TF", "CAFFE", "MNN"] | None = None
    prototxt: PathStr | None = None
    fp16: bool = False
    weight_quant_bits: int = Field(default=0, description="0 = off; 2..8 bits")
    weight_quant_block: int = Field(default=0, ge=0, le=4096, description="0 = per channel")
    weight_quant_asymmetric: bool = False
    optimize_level: Literal[0, 1, 2] = 1
    static: bool = False
    batch: int | None = Field(default=None, ge=1, le=4096)
    biz_code: str = Field(default="MNN", max_length=64, pattern=r"^[A-Za-z0-9_.\-]*$")
    input_shapes: InputShapes | None = Field(default=None, description=_SHAPES_HELP + " (with static)")

    @field_validator("weight_quant_bits")
    @classmethod
    def _bits(cls, value: int) -> int:
        if value != 0 and not 2 <= value <= 8:
            raise ValueError("weight_quant_bits must be 0 (off) or between 2 and 8")
        return value

    @model_validator(mode="after")
    def _block_needs_bits(self) -> "ConvertArgs":
        if self.weight_quant_block and not self.weight_quant_bits:
            raise ValueError("weight_quant_block needs weight_quant_bits")
        if self.input_shapes and not self.static:
            raise ValueError("input_shapes fix the shapes of a static model: set static")
        return self


class QuantizeArgs(ToolArgs, WritesModel, RuntimeArgs):
    """Full int8 quantization of a .mnn model with a calibration folder (the runtime fields are
    where the int8 model's speed is checked against the float model's)."""

    calibration: PathStr | None = Field(default=None, description="a folder of samples (or give dataset)")
    dataset: PathStr | None = Field(
        default=None, description="an image dataset (docs/datasets.md): its train split calibrates, and "
        "the float and int8 models are evaluated on its val split afterwards"
    )
    input_type: Literal["image", "sequence"] = "image"
    format: Literal["RGB", "BGR", "RGBA", "GRAY"] = "RGB"
    mean: list[float] = Field(default_factory=lambda: [127.5, 127.5, 127.5], max_length=4)
    normal: list[float] = Field(default_factory=lambda: [0.00784314, 0.00784314, 0.00784314], max_length=4)
    width: int | None = Field(default=None, ge=1, le=8192)
    height: int | None = Field(default=None, ge=1, le=8192)
    center_crop_h: float | None = Field(default=None, gt=0, le=1)
    center_crop_w: float | None = Field(default=None, gt=0, le=1)
    max_samples: int | None = Field(default=None, ge=1, le=100_000)
    feature_method: Literal["KL", "EMA", "ADMM"] = "KL"
    weight_method: Literal["MAX_ABS", "ADMM"] = "MAX_ABS"
    skip_ops: list[OpName] = Field(default_factory=list, max_length=10_000)
    input_shapes: InputShapes | None = Field(default=None, description=_SHAPES_HELP)

    @model_validator(mode="after")
    def _samples(self) -> "QuantizeArgs":
        if self.calibration is None and self.dataset is None:
            raise ValueError("give calibration (a folder of samples) or dataset")
        if self.dataset is not None and self.input_type != "image":
            raise ValueError("a dataset calibrates image models: input_type must be image")
        return self

    @field_validator("feature_method")
    @classmethod
    def _no_admm(cls, value: str) -> str:
        if value == "ADMM":
            # MNN 3.6.1's ADMM feature calibration dereferences freed memory and segfaults.
            raise ValueError(
                "feature_method ADMM is refused: it crashes MNN 3.6.1's quantizer; use KL or EMA"
            )
        return value


class InspectArgs(ToolArgs):
    """Describe a .mnn, .onnx or .tflite model."""


class CompareArgs(ToolArgs, RuntimeArgs):
    """A .mnn model (run on ``backend``) against a reference: .onnx (ONNX Runtime) or another
    .mnn (on the CPU)."""

    reference: PathStr
    inputs: dict[str, PathStr] | None = Field(
        default=None, description="input name → a .npy/.npz file, or an image or .wav made a tensor by the "
        "model's spec; missing inputs are random with `seed`"
    )
    threshold: float = Field(default=0.01, gt=0, le=1e6)
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    per_layer: bool = True
    input_shapes: InputShapes | None = Field(default=None, description=_SHAPES_HELP)


class BenchmarkArgs(ToolArgs, RuntimeArgs):
    """Latency of a .mnn model on this machine, on one of MNN's backends."""

    memory: Literal["normal", "high", "low"] = "normal"
    warmup: int = Field(default=10, ge=0, le=10_000)
    loops: int = Field(default=50, ge=1, le=100_000)
    per_op: bool = True
    per_op_loops: int = Field(default=20, ge=1, le=10_000)
    input_shapes: InputShapes | None = Field(default=None, description=_SHAPES_HELP)
    inputs: dict[str, PathStr] | None = Field(
        default=None, description="input name → a real input file (as compare's); missing inputs are random"
    )


class DiffArgs(ToolArgs):
    """Two .mnn models side by side: ``model`` (A, the baseline) and ``other`` (B)."""

    other: PathStr
    reference: PathStr | None = None
    inputs: dict[str, PathStr] | None = None
    threads: int = Field(default=1, ge=1, le=64)
    warmup: int = Field(default=5, ge=0, le=10_000)
    loops: int = Field(default=20, ge=1, le=10_000)
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    input_shapes: InputShapes | None = Field(default=None, description=_SHAPES_HELP)


QuantBit = Literal[4, 8, 16]


class LlmExportArgs(ToolArgs):
    """A model folder (``config.json`` + weights + tokenizer) → an MNN-LLM folder."""

    model: PathStr = Field(validation_alias=AliasChoices("model_dir", "model"))
    quant_bit: QuantBit = 4
    quant_block: int = Field(default=64, ge=0, le=4096, description="0 = per channel")
    lm_quant_bit: QuantBit | None = None
    embedding: bool = Field(default=False, description="export as a text-embedding model")
    # Set by the server, never by a request: a model's own code may run (docs/llm.md).
    trust_remote_code: bool = Field(default=False, exclude=True)


class LlmBenchArgs(ToolArgs):
    """Prefill and decode speed of an exported model, per prompt length."""

    prompt_tokens: list[Annotated[int, Field(ge=1, le=32768)]] = Field(
        default_factory=lambda: [64, 256, 1024], min_length=1, max_length=8
    )
    gen_tokens: int = Field(default=128, ge=1, le=4096)
    threads: int = Field(default=2, ge=1, le=64)
    repeats: int = Field(default=3, ge=1, le=50)
    device_id: str | None = Field(default=None, min_length=1, max_length=64,
                                  description="run on this paired device, through its agent")


class TryArgs(ToolArgs):
    """Try it: one real input file through a .mnn model, read by the model's spec."""

    input: PathStr = Field(description="an image, .wav, .npy or .npz file in the project")
    threads: int = Field(default=1, ge=1, le=64)
    input_shapes: InputShapes | None = Field(default=None, description=_SHAPES_HELP)


class PipelineArgs(ToolArgs):
    """A pipeline on input images: ``model`` is its ``pipeline.toml`` (docs/pipelines.md)."""

    inputs: list[PathStr] = Field(min_length=1, max_length=64, description="images or folders of them")
    device_id: str | None = Field(default=None, min_length=1, max_length=64,
                                  description="run on this paired device, through its agent")
    variants: dict[Annotated[str, Field(max_length=128)], dict[str, str | int]] | None = Field(
        default=None, max_length=64, description="per model stage: model (another .mnn beside the "
        "pipeline), threads, backend, precision (docs/pipelines.md)")
    dataset: PathStr | None = Field(default=None, description="evaluate on this labelled set: a folder of "
                                    "images and its labels file (docs/pipelines.md#evaluating-one)")
    metric: str | None = Field(default=None, min_length=1, max_length=64,
                               description="char_accuracy | accuracy; default: the one the last stage fits")
    # Set by the server, never by a request: the project folder, to name inputs relative to it;
    # the labelled set read (device_bridge/runtime/pipeline_eval.py ``evaluation``).
    root: str | None = Field(default=None, exclude=True)
    evaluation: dict[str, Any] | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _metric_with_dataset(self) -> "PipelineArgs":
        if self.metric is not None and self.dataset is None:
            raise ValueError("metric: only with a dataset to evaluate on")
        return self


class EvaluateArgs(ToolArgs, RuntimeArgs):
    """Models (a source model and its MNN variants) on the same samples of a dataset: top-1 and
    top-5 or mAP@0.5 (or a metric script), per class, the confusion matrix, latency, and the
    samples where they disagree (docs/datasets.md). The runtime fields are where MNN runs."""

    # every other tool works on one model; this one on several, so ``model`` stays empty
    model: PathStr | None = Field(default=None, description="not used: evaluate takes models")  # type: ignore[assignment]
    models: list[PathStr] = Field(min_length=1, max_length=8, description=".onnx, .tflite or .mnn files with "
                                  "model specs; the first is the baseline the others are measured against")
    dataset: PathStr = Field(description="a dataset folder, .csv or COCO .json (docs/datasets.md)")
    split: str | None = Field(default=None, min_length=1, max_length=64,
                              description="default: val (or validation, valid, test), else every sample")
    metric: str | None = Field(default=None, min_length=1, max_length=4096,
                               description="accuracy | map50 | a .py metric script in the project")
    limit: int | None = Field(default=None, ge=1, le=100_000, description="at most this many samples "
                              "(files that cannot be read not counted), taken class by class in turn")
    input_shapes: InputShapes | None = Field(default=None, description=_SHAPES_HELP)
    # Set by the server, never by a request: the project folder, to name files relative to it.
    root: str | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _models(self) -> "EvaluateArgs":
        if self.model is not None:
            raise ValueError("evaluate takes models (a list), not model")
        if len(set(self.models)) != len(self.models):
            raise ValueError("a model is listed twice")
        return self


ARG_MODELS: dict[str, type[ToolArgs]] = {
    "convert": ConvertArgs,
    "quantize": QuantizeArgs,
    "inspect": InspectArgs,
    "compare": CompareArgs,
    "benchmark": BenchmarkArgs,
    "diff": DiffArgs,
    "llm-export": LlmExportArgs,
    "llm-bench": LlmBenchArgs,
    "try": TryArgs,
    "pipeline": PipelineArgs,
    "evaluate": EvaluateArgs,
}
# Tools whose code lives outside this package; the rest are ``server.modeltools.<tool>``.
TOOL_MODULES: dict[str, str] = {
    "llm-export": "server.llm.export", "llm-bench": "server.llm.bench", "try": "server.modeltools.trial",
    "pipeline": "server.modeltools.pipeline_run",
}
