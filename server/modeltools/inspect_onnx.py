"""Describe an ONNX model without running it."""

from collections import Counter
from pathlib import Path
from typing import Any

from server.modeltools.errors import ToolFailed

_LAYOUTS = {4: "NCHW", 3: "NCW", 5: "NCDHW"}


def _dims(value_info: Any) -> list[int | str]:
    shape = value_info.type.tensor_type.shape
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in shape.dim]


def _describe(value_info: Any) -> dict[str, Any]:
    import onnx

    dims = _dims(value_info)
    elem = value_info.type.tensor_type.elem_type
    return {
        "name": value_info.name,
        "shape": dims,
        "dtype": onnx.helper.tensor_dtype_to_np_dtype(elem).name if elem else "unknown",
        "layout": _LAYOUTS.get(len(dims)),
    }


def _static(dims: list[int | str]) -> list[int]:
    return [d if isinstance(d, int) and d > 0 else 1 for d in dims]


def _node_macs(node: Any, shapes: dict[str, list[int]]) -> int:
    """Multiply-accumulates of one Conv / ConvTranspose / Gemm / MatMul (others count as 0)."""
    out = shapes.get(node.output[0]) if node.output else None
    if not out:
        return 0
    out_elems = 1
    for d in out:
        out_elems *= d
    if node.op_type in ("Conv", "ConvTranspose") and len(node.input) > 1:
        weight = shapes.get(node.input[1])
        if not weight:
            return 0
        per_out = 1
        for d in weight[1:]:
            per_out *= d
        if node.op_type == "ConvTranspose":
            return _elems(shapes.get(node.input[0], [])) * per_out
        return out_elems * per_out
    if node.op_type in ("Gemm", "MatMul"):
        left = shapes.get(node.input[0])
        return out_elems * left[-1] if left else 0
    return 0


def _elems(dims: list[int]) -> int:
    total = 1
    for d in dims:
        total *= d
    return total


def _shapes(model: Any) -> dict[str, list[int]]:
    import onnx

    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:
        inferred = model
    graph = inferred.graph
    shapes = {init.name: list(init.dims) for init in graph.initializer}
    for info in [*graph.input, *graph.value_info, *graph.output]:
        shapes.setdefault(info.name, _static(_dims(info)))
    return shapes


def inspect_onnx(path: Path) -> dict[str, Any]:
    import onnx

    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as exc:
        raise ToolFailed(f"{path.name}: not a readable ONNX model ({exc})") from None
    graph = model.graph
    initializers = {init.name for init in graph.initializer}
    shapes = _shapes(model)
    types = [f"{n.domain}.{n.op_type}" if n.domain else n.op_type for n in graph.node]
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    return {
        "format": "onnx",
        "file_size": path.stat().st_size,
        "inputs": [_describe(i) for i in graph.input if i.name not in initializers],
        "outputs": [_describe(o) for o in graph.output],
        "op_histogram": [{"type": t, "count": c} for t, c in Counter(types).most_common()],
        "op_count": len(graph.node),
        "params": sum(_elems(list(init.dims)) for init in graph.initializer),
        "mflops": sum(_node_macs(n, shapes) for n in graph.node) / 1e6,
        "memory_mb": None,
        "version": f"IR {model.ir_version}, opset {opsets.get('ai.onnx', '?')}",
        "producer": f"{model.producer_name} {model.producer_version}".strip(),
        "uuid": None,
        "biz_code": None,
        "source_format": "ONNX",
    }
