"""Two .mnn models side by side (fp32 vs int8, last release vs HEAD): size, latency, outputs,
and per layer both the time each op takes in A and in B and how far B's tensor is from A's.

A is the baseline. Both run on the same inputs (random with ``seed``, or given ``.npy`` files);
every float tensor named in both graphs is read from both, and each op's time comes from the
same callback timing as the benchmark's per-op table. With a ``reference`` (.onnx or .mnn), both
models' outputs are also measured against it.
"""

from pathlib import Path
from typing import Any

import numpy as np

from server.modeltools import benchmark, compare, tensors
from server.modeltools.inspect import read_model
from server.modeltools.progress import report
from server.modeltools.schemas import BenchmarkArgs, DiffArgs

Arrays = dict[str, np.ndarray]


def _timing(path: str, inputs: Arrays, args: DiffArgs) -> dict[str, Any]:
    """Median latency of plain runs, then a per-op table (op name → median ms)."""
    config = benchmark.session_config(BenchmarkArgs(model=path, threads=args.threads))
    loaded = tensors.load(path, config)
    tensors.feed(loaded, {n: inputs[n] for n in loaded.inputs() if n in inputs})
    for _ in range(args.warmup):
        loaded.net.runSession(loaded.session)
    stats = benchmark.latency_stats(benchmark.timed_loop(loaded, args.loops))
    table = benchmark.per_op_table(loaded, args.loops)
    return {
        "median_ms": stats["median_ms"],
        "memory_mb": float(loaded.net.getSessionInfo(loaded.session, 0)),
        "ops": {row["name"]: row for row in table["ops"]},
    }


def _tensor_of(ops: list[dict[str, Any]]) -> dict[str, str]:
    """Op name → the tensor it writes first (where its output is read from)."""
    return {op["name"]: op["outputs"][0] for op in ops if op["outputs"]}


def _layer_rows(a: dict, b: dict, tensor_of: dict[str, str], errors: dict[str, dict]) -> list[dict]:
    rows = []
    for name in [*a["ops"], *(n for n in b["ops"] if n not in a["ops"])]:
        op_a, op_b = a["ops"].get(name), b["ops"].get(name)
        error = errors.get(tensor_of.get(name, ""), {})
        a_ms = op_a["ms"] if op_a else None
        b_ms = op_b["ms"] if op_b else None
        rows.append(
            {
                "name": name,
                "type": (op_a or op_b or {}).get("type", "").split(" [")[0].strip(),
                "a_ms": a_ms,
                "b_ms": b_ms,
                "delta_ms": None if a_ms is None or b_ms is None else b_ms - a_ms,
                "cosine": error.get("cosine"),
                "max_abs_error": error.get("max_abs_error"),
            }
        )
    return rows


def _graph_changes(a_ops: list[dict], b_ops: list[dict]) -> dict[str, Any]:
    """Ops only in A, only in B, and in both but of another type, weight count or storage."""
    by_a, by_b = {op["name"]: op for op in a_ops}, {op["name"]: op for op in b_ops}
    changed = [
        {
            "name": name,
            **{f"{side}_{key}": op[key] for side, op in (("a", by_a[name]), ("b", by_b[name]))
               for key in ("type", "params", "quantized")},
        }
        for name in by_a
        if name in by_b and any(by_a[name][k] != by_b[name][k] for k in ("type", "params", "quantized"))
    ]
    return {
        "ops_only_in_a": [n for n in by_a if n not in by_b],
        "ops_only_in_b": [n for n in by_b if n not in by_a],
        "ops_changed": changed,
    }


def _versus_reference(reference: str, inputs: Arrays, a_out: Arrays, b_out: Arrays) -> dict[str, Any]:
    runner = compare.onnx_reference if reference.lower().endswith(".onnx") else compare.run_mnn
    ref_out, _ = runner(reference, inputs, [])
    a_rows, _ = compare.output_rows(a_out, ref_out, None)
    b_rows, _ = compare.output_rows(b_out, ref_out, None)
    return {"a": compare.worst(a_rows), "b": compare.worst(b_rows)}


def _inputs(args: DiffArgs) -> Arrays:
    """Inputs of A's shapes; B (and the reference) must run at the same ones."""
    values = compare.run_inputs(tensors.load(args.model), args.inputs, args.input_shapes, args.seed)
    tensors.accepts(args.other, compare.shapes_of(values), "model B: ")
    if args.reference:
        tensors.accepts(args.reference, compare.shapes_of(values), "the reference: ")
    return values


def run(args: DiffArgs) -> dict[str, Any]:
    a_path, b_path = args.model, args.other
    inputs = _inputs(args)
    a_model, b_model = read_model(Path(a_path)), read_model(Path(b_path))
    layers = compare.candidate_layers(a_path, b_path)
    a_out, a_layers = compare.run_mnn(a_path, inputs, layers)
    b_out, b_layers = compare.run_mnn(b_path, inputs, layers)
    outputs, warnings = compare.output_rows(b_out, a_out, None)
    errors = {row["name"]: row for row in compare.error_table(b_layers, a_layers, None)}
    report(0.3, "timing A")
    a_time = _timing(a_path, inputs, args)
    report(0.65, "timing B")
    b_time = _timing(b_path, inputs, args)
    result: dict[str, Any] = {
        "size": {"a": Path(a_path).stat().st_size, "b": Path(b_path).stat().st_size},
        "input_shapes": compare.shapes_of(inputs),
        "latency": {
            "a_median_ms": a_time["median_ms"],
            "b_median_ms": b_time["median_ms"],
        },
        "memory": {"a_mb": a_time["memory_mb"], "b_mb": b_time["memory_mb"]},
        "outputs": outputs,
        "layers": _layer_rows(a_time, b_time, _tensor_of(a_model["ops"]), errors),
        **_graph_changes(a_model["ops"], b_model["ops"]),
        "warnings": warnings,
    }
    if args.reference:
        result["reference"] = _versus_reference(args.reference, inputs, a_out, b_out)
    return result
