"""Full int8 quantization with MNN's native quantizer and a calibration folder.

The quantizer reads every file of the folder it is given, so the usable samples are staged as
links in a folder of their own: images MNN cannot decode are skipped and named first
(``calibration``); ``.npy`` sequences are written out as the ``.txt`` rows the quantizer reads.
Its ``debug`` report gives the per-layer cosine between float and int8. Afterwards both models
run on the run's backend: an int8 model slower than the float one is a warning with both times.
"""

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np

from server.modeltools import calibration, mnnfile, native, quantize_accuracy, tensors
from server.modeltools.compare import run_mnn
from server.modeltools.convert import io_summary
from server.modeltools.errors import ToolFailed
from server.modeltools.formats import BadModelFile, calibration_files
from server.modeltools.outputs import collapse, pair
from server.modeltools.progress import report
from server.modeltools.schemas import QuantizeArgs
from server.modeltools.shapes import Shapes

QUANT_DONE = "Quantize model done!"
SPEED_RUNS = 5  # timed runs of each model after one warm-up, interleaved
SPEED_BUDGET_S = 1.0  # a warm-up slower than this gets 3 timed runs instead
SLOWER = 1.1  # int8 this much slower than float is reported: 5 runs each vary by a few percent
_LAYER = re.compile(
    r"^(?P<op>.+?) (?P<tensor>(?:input|output)_tensor_\d+):\s+cos distance: (?P<cos>\S+), "
    r"overflow ratio: (?P<overflow>\S+)"
)


def _stage_images(files: list[Path], staged: Path) -> None:
    for index, source in enumerate(files):
        os.symlink(source, staged / f"{index:06d}{source.suffix.lower()}")


def _sequence_value(path: Path, shape: list[int]) -> np.ndarray:
    try:
        if path.suffix.lower() == ".npy":
            return np.asarray(np.load(path, allow_pickle=False), dtype=np.float32)
        return np.loadtxt(path, dtype=np.float32, ndmin=1).reshape(shape)
    except (OSError, ValueError) as exc:
        raise ToolFailed(f"{path.name}: not a usable calibration sample ({exc})") from None


def _sample_files(sample: Path, inputs: dict[str, list[int]]) -> dict[str, Path]:
    """Input name → file of one sample: the file itself, or ``<name>.npy|.txt`` in a folder."""
    if sample.is_file():
        if len(inputs) != 1:
            raise ToolFailed("a model with several inputs needs one sample folder per sample")
        return {next(iter(inputs)): sample}
    found = {}
    for name in inputs:
        candidates = [sample / f"{name}{suffix}" for suffix in (".npy", ".txt")]
        existing = [c for c in candidates if c.is_file()]
        if not existing:
            raise ToolFailed(f"calibration sample {sample.name} has no {name}.npy or {name}.txt")
        found[name] = existing[0]
    return found


def _stage_sequences(samples: list[Path], staged: Path, inputs: dict[str, list[int]]) -> None:
    """MNN reads a sequence sample as a folder of ``<input>.txt`` values plus ``input.json``."""
    for index, sample in enumerate(samples):
        folder = staged / f"{index:06d}"
        folder.mkdir()
        shapes = []
        for name, path in _sample_files(sample, inputs).items():
            value = _sequence_value(path, inputs[name])
            if value.size == int(np.prod(inputs[name])):
                value = value.reshape(inputs[name])  # a sample may leave out the batch axis
            np.savetxt(folder / f"{name}.txt", value.reshape(1, -1), fmt="%.8g")
            shapes.append({"name": name, "shape": list(value.shape)})
        (folder / "input.json").write_text(json.dumps({"inputs": shapes}))


def _stage(samples: list[Path], args: QuantizeArgs, sizes: Shapes) -> Path:
    staged = Path("calibration")
    staged.mkdir(exist_ok=True)
    chosen = samples[: args.max_samples]
    if args.input_type == "image":
        _stage_images(chosen, staged)
    else:
        _stage_sequences(chosen, staged, sizes)
    return staged


def _speed(float_model: str, int8_model: str, sizes: Shapes, args: QuantizeArgs) -> dict[str, Any]:
    """Median latency of the float and the int8 model on the run's backend, runs interleaved so
    a neighbour's load weighs on both."""
    models = {"float": tensors.load_on(float_model, args), "int8": tensors.load_on(int8_model, args)}
    inputs = tensors.random_inputs(models["float"], 0, sizes)
    times: dict[str, list[float]] = {kind: [] for kind in models}
    started = time.perf_counter()
    for model in models.values():
        tensors.feed(model, inputs)
        model.net.runSession(model.session)
    runs = SPEED_RUNS if time.perf_counter() - started < SPEED_BUDGET_S else 3
    for _ in range(runs):
        for kind, model in models.items():
            start = time.perf_counter()
            model.net.runSession(model.session)
            times[kind].append((time.perf_counter() - start) * 1000.0)
    return {**tensors.runtime_record(args), "runs": runs,
            "float_ms": float(np.median(times["float"])), "int8_ms": float(np.median(times["int8"]))}


def speed_warnings(speed: dict[str, Any]) -> list[str]:
    if speed["int8_ms"] <= speed["float_ms"] * SLOWER:
        return []
    threads = f", {speed['threads']} thread{'s' if speed['threads'] > 1 else ''}" \
        if speed["backend"] == "CPU" else ""
    return [f"the int8 model is slower than the float model on {speed['backend']}{threads}: "
            f"{speed['int8_ms']:.3g} ms against {speed['float_ms']:.3g} ms (median of "
            f"{speed['runs']} runs each); int8 only saves size here: benchmark both on the "
            "target device or backend before choosing it"]


def _default_size(model: tensors.Loaded, sizes: Shapes) -> tuple[int, int]:
    name, tensor = next(iter(model.inputs().items()))
    shape = sizes[name]
    if len(shape) != 4:
        raise ToolFailed("image calibration needs a 4-D input; set input_type to sequence")
    if tensors.layout_name(tensor) == "NHWC":
        return shape[2], shape[1]
    return shape[3], shape[2]


def _config(args: QuantizeArgs, staged: Path, count: int, model: tensors.Loaded, sizes: Shapes) -> dict:
    width, height = _default_size(model, sizes) if args.input_type == "image" else (0, 0)
    config: dict[str, Any] = {
        "format": args.format,
        "mean": args.mean,
        "normal": args.normal,
        "width": args.width or width,
        "height": args.height or height,
        "path": f"{staged}{os.sep}",
        "used_image_num": count,
        "used_sample_num": count,
        "feature_quantize_method": args.feature_method,
        "weight_quantize_method": args.weight_method,
        "skip_quant_op_names": args.skip_ops,
        "debug": True,
    }
    if args.input_type == "sequence":
        config["input_type"] = "sequence"
        first = json.loads(next(staged.glob("*/input.json")).read_text())
        config["inputs"] = first["inputs"]
    if args.center_crop_h:
        config["center_crop_h"] = args.center_crop_h
    if args.center_crop_w:
        config["center_crop_w"] = args.center_crop_w
    return config


def _warnings(text: str, layers: list[dict[str, Any]]) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if "error" in line.lower()]
    if not layers:
        lines.append("the quantizer reported no per-layer statistics: check the calibration data")
    return list(dict.fromkeys(lines))[:50]


def _require_quantized(output: Path, text: str, layers: list[dict[str, Any]]) -> None:
    """The quantizer writes the float model back when the calibration data does not fit the
    model (it only prints errors); such a run has failed, with the quantizer's reason."""
    quantized = [op for op in mnnfile.read_model(output)["ops"] if op["quantized"]]
    if layers or quantized:
        return
    reason = native.error_summary(text) or "the quantizer reported no per-layer statistics"
    raise ToolFailed(
        f"quantization failed, nothing was quantized (check the calibration data's shape): {reason}"
    )


def _collapsed_outputs(float_model: str, int8_model: str, sizes: Shapes) -> list[str]:
    """Outputs the int8 model reduces to NaN, Inf or one constant where the float model does not."""
    inputs = tensors.random_inputs(tensors.load(float_model), 0, sizes)
    before, _ = run_mnn(float_model, inputs, [])
    after, _ = run_mnn(int8_model, inputs, [])
    warnings = []
    for name, float_name in pair(after, before)[0]:
        reason = collapse(after[name])
        if reason is not None and collapse(before[float_name]) is None:
            warnings.append(
                f"int8 output {name!r} {reason} while the float output varies: the quantized "
                "model has lost the signal (tiny activations round to zero); check it with Compare"
            )
    return warnings


def parse_layers(text: str) -> list[dict[str, Any]]:
    layers = []
    for line in text.splitlines():
        if match := _LAYER.match(line.strip()):
            layers.append(
                {
                    "name": match["op"],
                    "tensor": match["tensor"],
                    "cosine": float(match["cos"]),
                    "overflow_ratio": float(match["overflow"]),
                }
            )
    return layers


def run(args: QuantizeArgs) -> dict[str, Any]:
    if args.output is None:
        raise ToolFailed("quantize needs an output path")
    model = tensors.load(args.model)
    sizes = tensors.run_shapes(tensors.declared(model), args.input_shapes)
    dataset = quantize_accuracy.dataset_of(args)
    skipped: list[dict[str, str]] = []
    if args.calibration is None and dataset is not None:  # the dataset's train split calibrates
        files, skipped = quantize_accuracy.calibration_images(dataset)
        files, undecodable = calibration.usable_images(dataset.folder, args.max_samples, files)
        skipped += undecodable
    else:
        try:
            files = calibration_files(Path(args.calibration or ""), args.input_type)
        except BadModelFile as exc:
            raise ToolFailed(str(exc)) from None
    if args.input_type == "image" and args.calibration is not None:
        files, skipped = calibration.usable_images(Path(args.calibration), args.max_samples)
    staged = _stage(files, args, sizes)
    count = len(list(staged.iterdir()))
    Path("quant.json").write_text(json.dumps(_config(args, staged, count, model, sizes)))
    output = Path(args.output)
    open_inputs = [f"{i.name} [{', '.join(str(d or '?') for d in i.dims)}]"
                   for i in tensors.declared(model) if i.dynamic]
    if open_inputs:
        native.crash_hint(
            f"the model's inputs have open dims ({', '.join(open_inputs)}); MNN's quantizer "
            "crashes on some such models (a mean over the open height and width, measured with "
            "MNN 3.6.1) whatever the input_shapes: convert the source with static and "
            "input_shapes, then quantize that conversion")
    with native.atomic_output(output) as partial:
        text = native.quantize(args.model, str(partial), "quant.json")
        native.check_written(partial, text, QUANT_DONE, "quantization")
        layers = parse_layers(text)
        _require_quantized(partial, text, layers)
    finite = [layer["cosine"] for layer in layers if np.isfinite(layer["cosine"])]
    input_size = Path(args.model).stat().st_size
    report(0.9, "timing float and int8")
    speed = _speed(args.model, str(output), sizes, args)
    accuracy = quantize_accuracy.accuracy_drop(args, dataset, output) if dataset is not None else None
    return {
        "output": str(output),
        "input_size": input_size,
        "output_size": output.stat().st_size,
        "compression_ratio": round(input_size / output.stat().st_size, 4),
        "samples": count,
        "skipped": skipped,
        "layers": layers,
        "cosine": min(finite) if finite else None,
        **io_summary(output),
        "input_shapes": sizes,
        "speed": speed,
        "warnings": _warnings(text, layers) + _collapsed_outputs(args.model, str(output), sizes)
        + speed_warnings(speed) + quantize_accuracy.drop_warnings(accuracy),
        **({"accuracy": accuracy} if accuracy is not None else {}),
    }
