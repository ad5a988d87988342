"""Convert ONNX / TFLite / TF / Caffe / MNN models to .mnn with MNN's native converter."""

import mmap
import re
from pathlib import Path
from typing import Any

from server.modeltools import mnnfile, native
from server.modeltools.errors import ToolFailed
from server.modeltools.formats import framework_of
from server.modeltools.schemas import ConvertArgs

_WARNING = re.compile(r"warn|not support|unsupport|fallback|\[ERROR\]", re.IGNORECASE)


def _caffe_pair(model: Path, prototxt: str | None) -> tuple[Path, Path]:
    """Caffe needs the weights (.caffemodel) and the graph (.prototxt); find the missing half."""
    if model.suffix.lower() == ".prototxt":
        weights, graph = model.with_suffix(".caffemodel"), model
    else:
        weights, graph = model, Path(prototxt) if prototxt else model.with_suffix(".prototxt")
    for part in (weights, graph):
        if not part.is_file():
            raise ToolFailed(f"Caffe conversion needs {part.name} beside {model.name}")
    return weights, graph


def converter_argv(args: ConvertArgs, output: Path) -> list[str]:
    """The converter's command line; every boolean is spelled out (see ``native.bool_flag``)."""
    model = Path(args.model)
    framework = args.framework or framework_of(model)
    argv = ["-f", framework, "--MNNModel", str(output), "--bizCode", args.biz_code]
    if framework == "CAFFE":
        weights, graph = _caffe_pair(model, args.prototxt)
        argv += ["--modelFile", str(weights), "--prototxt", str(graph)]
    else:
        argv += ["--modelFile", str(model)]
    argv += native.bool_flag("keepInputFormat", True)
    argv += ["--optimizeLevel", str(args.optimize_level)]
    argv += native.presence_flag("fp16", args.fp16)
    argv += native.presence_flag("saveStaticModel", args.static)
    if args.weight_quant_bits:
        argv += ["--weightQuantBits", str(args.weight_quant_bits)]
        argv += native.bool_flag("weightQuantAsymmetric", args.weight_quant_asymmetric)
        if args.weight_quant_block:
            argv += ["--weightQuantBlock", str(args.weight_quant_block)]
    if args.batch:
        argv += ["--batch", str(args.batch)]
    if args.static and args.input_shapes:
        argv += ["--inputConfigFile", str(_input_config(args.input_shapes))]
    return argv


def _input_config(sizes: dict[str, list[int]]) -> Path:
    """The converter's input file for a static model: every key must be there (a missing one
    prints ``Key Error!`` and crashes MNN 3.6.1). Written in the run's folder."""
    path = Path("static-inputs.txt").resolve()
    path.write_text(
        f"input_size = {len(sizes)}\n"
        f"input_names = {','.join(sizes)}\n"
        f"input_dims = {','.join('x'.join(str(d) for d in dims) for dims in sizes.values())}\n"
    )
    return path


def require_usable(path: Path, text: str) -> None:
    """A written model MNN would refuse (no op, no tensor names, an unreadable FlatBuffer) fails
    the conversion: MNN 3.6.1 prints ``Converted Success!`` for a static conversion whose shapes
    it could not compute, after writing a 132-byte model that holds nothing."""
    try:
        model = mnnfile.read_model(path)
    except ValueError as exc:
        raise ToolFailed(f"conversion failed: MNN cannot load the written model ({exc})") from None
    if not model["ops"]:
        reason = native.error_summary(text) or "the converter gave no reason"
        raise ToolFailed(f"conversion failed: the written model holds no op ({reason})")


def io_summary(path: Path) -> dict[str, Any]:
    """Inputs and outputs of a written .mnn, read from its header (no model load)."""
    try:
        header = mnnfile.read_header(path)
    except ValueError as exc:
        return {"inputs": [], "outputs": [], "io_error": str(exc)}
    return {"inputs": header["inputs"], "outputs": header["outputs"]}


def _warnings(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if _WARNING.search(line)][:50]


def _onnx_tensors(graph: Any) -> Any:
    yield from graph.initializer
    for node in graph.node:
        for attr in node.attribute:
            yield from ([attr.t] if attr.HasField("t") else [])
            yield from attr.tensors
            for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                yield from _onnx_tensors(sub)


def _reject_external_data_escape(model: Path) -> None:
    """ONNX external data may point outside the model's folder (CVE-2024-27318): refuse that."""
    if model.suffix.lower() != ".onnx":
        return
    # Searched in place: copying a large model into memory first costs a visible share of the
    # conversion.
    with model.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data.find(b"location") < 0:
            return
    import onnx

    proto = onnx.load(str(model), load_external_data=False)
    for tensor in _onnx_tensors(proto.graph):
        for entry in tensor.external_data:
            value = entry.value
            if entry.key == "location" and (value.startswith(("/", "\\")) or ".." in value):
                raise ToolFailed(f"external data path {value!r} leaves the model's folder")


def run(args: ConvertArgs) -> dict[str, Any]:
    if args.output is None:
        raise ToolFailed("convert needs an output path")
    model, output = Path(args.model), Path(args.output)
    _reject_external_data_escape(model)
    with native.atomic_output(output) as partial:
        argv = converter_argv(args, partial)
        text = native.convert(argv)
        native.check_written(partial, text, native.CONVERT_SUCCESS, "conversion")
        require_usable(partial, text)
    input_size = model.stat().st_size
    output_size = output.stat().st_size
    return {
        "output": str(output),
        "framework": argv[1],
        "input_size": input_size,
        "output_size": output_size,
        "compression_ratio": round(input_size / output_size, 4),
        **io_summary(output),
        **({"input_shapes": args.input_shapes} if args.input_shapes else {}),
        "warnings": _warnings(text),
    }
