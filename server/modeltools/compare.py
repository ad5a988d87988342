"""Compare a .mnn model with a reference on the same inputs: ONNX Runtime, or another .mnn.

Per output: max / mean absolute error, error relative to the reference's largest magnitude, and
cosine; per layer for every float tensor of the model paired with the reference's (``layers``:
by name, by the converter's naming, by graph position), with coverage, the tensors fused away
and the first divergent layer; a verdict against ``threshold``
(the largest relative error allowed on any output). Outputs pair by name, else by position (see
``outputs``); a collapsed output (constant, NaN, Inf) of either side fails and is named in
``warnings``. Both sides run at the shapes the model's inputs resolve to (``shapes``); a
reference that fixes a dim to another size is refused, never compared at another shape.
"""

from pathlib import Path
from typing import Any

import numpy as np

from server.modeltools import layers, mnnfile, real_inputs, tensors
from server.modeltools.errors import ToolFailed
from server.modeltools.outputs import collapse, collapse_warnings, pair
from server.modeltools.schemas import CompareArgs
from server.modeltools.shapes import Shapes

MAX_LAYERS = 500
_ORT_TYPES = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(uint8)": np.uint8,
    "tensor(int8)": np.int8,
    "tensor(bool)": np.bool_,
}


def run_inputs(
    model: tensors.Loaded, given: dict[str, str] | None, input_shapes: Shapes | None, seed: int
) -> dict[str, np.ndarray]:
    """Inputs for one run: the given files (arrays as they are, images and audio by the model's
    spec: ``real_inputs``), random values (with ``seed``) of the resolved shapes for the rest;
    a dynamic dim of a random input must be in ``input_shapes``."""
    declared = tensors.declared(model)
    files = real_inputs.load(Path(model.path), given, declared, input_shapes)
    sizes = tensors.run_shapes(declared, input_shapes, exempt=tuple(files))
    for spec in declared:
        if spec.name in files:  # drawn and replaced, so the other inputs' random values stay put
            fixed = [d for d in spec.dims if d is not None]
            sizes[spec.name] = list(files[spec.name].shape) if spec.dynamic else fixed
    values = tensors.random_inputs(model, seed, sizes)
    values.update(files)
    return values


def shapes_of(values: dict[str, np.ndarray]) -> Shapes:
    return {name: list(value.shape) for name, value in sorted(values.items())}


def onnx_reference(path: str, inputs: dict[str, np.ndarray], layers: list[str]) -> tuple:
    """Run ONNX Runtime with the model's outputs plus every wanted intermediate tensor."""
    import onnx
    import onnxruntime as ort

    try:
        proto = onnx.load(path)
    except Exception as exc:
        raise ToolFailed(f"{Path(path).name}: not a readable ONNX model ({exc})") from None
    graph = proto.graph
    outputs = [o.name for o in graph.output]
    produced = {name for node in graph.node for name in node.output}
    known = set(outputs) | {i.name for i in graph.input}
    extra = [name for name in layers if name in produced and name not in known]
    graph.output.extend(onnx.ValueInfoProto(name=name) for name in extra)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feed = {
        i.name: inputs[i.name].astype(_ORT_TYPES.get(i.type, inputs[i.name].dtype))
        for i in session.get_inputs()
        if i.name in inputs
    }
    missing = [i.name for i in session.get_inputs() if i.name not in inputs]
    if missing:
        raise ToolFailed(f"the reference needs inputs the model lacks: {missing}")
    values = dict(zip([o.name for o in session.get_outputs()], session.run(None, feed), strict=True))
    return {n: values[n] for n in outputs}, {n: values[n] for n in extra}


def _output_names(path: str) -> list[str]:
    """The model's outputs in the order the file declares them."""
    probe = tensors.load(path)
    found = set(probe.outputs())
    try:
        declared = [o["name"] for o in mnnfile.read_header(Path(path))["outputs"]]
    except ValueError:
        declared = []
    return [n for n in declared if n in found] + sorted(found - set(declared))


def run_mnn(path: str, inputs: dict[str, np.ndarray], layers: list[str], runtime: Any = None) -> tuple:
    """Run a .mnn model (on ``runtime``'s backend, a ``RuntimeArgs``, else one CPU thread);
    saved intermediate tensors show up among the session's outputs.

    The model's own outputs are saved too: a model that declares no output names (an
    EMA-quantized one) otherwise loses them from the session's outputs once others are saved.
    """
    real_outputs = _output_names(path)
    saved = {"saveTensors": tuple(dict.fromkeys([*layers, *real_outputs]))} if layers else {}
    model = _fed(path, inputs, saved, runtime)
    model.net.runSession(model.session)
    values = {n: tensors.read(t) for n, t in model.outputs().items()}
    ordered = {n: values[n] for n in real_outputs if n in values}
    return ordered, {n: values[n] for n in layers if n in values and n not in real_outputs}


def _fed(path: str, inputs: dict[str, np.ndarray], config: dict[str, Any],
         runtime: Any = None) -> tensors.Loaded:
    model = tensors.load(path, config) if runtime is None else tensors.load_on(path, runtime, extra=config)
    names = set(model.inputs())
    missing = names - set(inputs)
    if missing:
        raise ToolFailed(f"{Path(path).name} needs inputs the other model lacks: {sorted(missing)}")
    tensors.feed(model, {n: inputs[n] for n in names})
    return model


def run_mnn_traced(path: str, inputs: dict[str, np.ndarray],
                   runtime: Any = None) -> tuple[dict, layers.Trace]:
    """Run a .mnn model with the per-op callback: its outputs, and every float tensor on the way."""
    real_outputs, order, views = _output_names(path), layers.layer_tensors(path), layers.views(path)
    keep = {"saveTensors": tuple(dict.fromkeys([*views, *real_outputs]))}
    model = _fed(path, inputs, keep, runtime)
    trace = layers.run_traced(model)
    values = {n: tensors.read(t) for n, t in model.outputs().items()}
    saved = {n: values[n] for n in views if n in values and n not in real_outputs}
    return {n: values[n] for n in real_outputs if n in values}, layers.with_views(trace, saved, order)


def onnx_tensor_names(path: str) -> list[str]:
    """The node outputs of an ONNX graph that depend on its inputs, in (topological) node order:
    constants and copies of weights are not layers."""
    import onnx

    try:
        graph = onnx.load(path, load_external_data=False).graph
    except Exception as exc:
        raise ToolFailed(f"{Path(path).name}: not a readable ONNX model ({exc})") from None
    live = {i.name for i in graph.input} - {init.name for init in graph.initializer}
    for node in graph.node:
        if any(name in live for name in node.input):
            live.update(name for name in node.output if name)
    return [name for node in graph.node for name in node.output if name in live]


def traced_runs(args: CompareArgs, inputs: dict[str, np.ndarray]) -> tuple[dict, dict, dict]:
    """Both models' outputs, and the layer report pairing their float tensors."""
    if args.reference.lower().endswith(".onnx"):
        order = onnx_tensor_names(args.reference)
        ref_out, extra = onnx_reference(args.reference, inputs, order)
        values = {**extra, **ref_out}
        ref_trace = {n: values[n] for n in order
                     if n in values and np.issubdtype(values[n].dtype, np.floating)}
    else:
        ref_out, ref_trace = run_mnn_traced(args.reference, inputs)
    our_out, our_trace = run_mnn_traced(args.model, inputs, args)
    per_layer, notes = layers.report(our_trace, ref_trace, args.threshold)
    return ref_out, our_out, {**per_layer, "warnings": notes}


def candidate_layers(model_path: str, reference_path: str) -> list[str]:
    """Tensor names present in both graphs, in the model's order (inputs and constants left out)."""
    import MNN

    graph = MNN.expr.load_as_dict(model_path)
    ours = [
        n for n, v in graph.items() if v.op_type not in ("Input", "Const") and str(v.dtype) == "dtype.float"
    ]
    if reference_path.lower().endswith(".onnx"):
        import onnx

        proto = onnx.load(reference_path, load_external_data=False)
        theirs = {name for node in proto.graph.node for name in node.output}
    else:
        theirs = set(MNN.expr.load_as_dict(reference_path))
    return [n for n in ours if n in theirs][:MAX_LAYERS]


def error_table(
    actual: dict, expected: dict, threshold: float | None, pairs: list[tuple[str, str]] | None = None
) -> list[dict[str, Any]]:
    pairs = [(n, n) for n in expected if n in actual] if pairs is None else pairs
    rows = []
    for ours, name in pairs:
        ref = expected[name]
        row: dict[str, Any] = {"name": name, "shape": list(ref.shape), **tensors.errors(actual[ours], ref)}
        if ours != name:
            row["model_name"] = ours
        if threshold is not None:
            # A constant reference matches a broken model as well as a right one: it proves
            # nothing, so the output fails whatever the error.
            row["collapsed"] = collapse(actual[ours])
            row["reference_collapsed"] = collapse(ref)
            row["passed"] = (row["relative_error"] <= threshold and row["collapsed"] is None
                             and row["reference_collapsed"] is None)
        rows.append(row)
    return rows


def output_rows(
    actual: dict, expected: dict, threshold: float | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Per-output error rows (paired by name, else by position) and what the reader must know."""
    pairs, matching = pair(actual, expected)
    if not pairs:
        raise ToolFailed(
            "the two models share no output name, and their outputs do not pair by position "
            f"(model: {list(actual)}, reference: {list(expected)})"
        )
    notes = []
    if matching == "position":
        renamed = ", ".join(f"{a} ↔ {b}" for a, b in pairs)
        notes.append(f"output names differ, so outputs were paired by position: {renamed}")
    notes += collapse_warnings(actual, "the model")
    notes += collapse_warnings(expected, "the reference")
    return error_table(actual, expected, threshold, pairs), notes


def worst(rows: list[dict[str, Any]]) -> dict[str, float]:
    return {
        "max_abs_error": max(r["max_abs_error"] for r in rows),
        "mean_abs_error": max(r["mean_abs_error"] for r in rows),
        "relative_error": max(r["relative_error"] for r in rows),
        "cosine": min(r["cosine"] for r in rows),
    }


def run(args: CompareArgs) -> dict[str, Any]:
    probe = tensors.load(args.model)
    inputs = run_inputs(probe, args.inputs, args.input_shapes, args.seed)
    tensors.accepts(args.reference, shapes_of(inputs), "the reference: ")
    onnx_ref = args.reference.lower().endswith(".onnx")
    if args.per_layer:
        ref_out, our_out, per_layer = traced_runs(args, inputs)
    else:
        ref_out, _ = (onnx_reference if onnx_ref else run_mnn)(args.reference, inputs, [])
        our_out, _ = run_mnn(args.model, inputs, [], args)
        per_layer = {"layers": [], "warnings": []}
    rows, notes = output_rows(our_out, ref_out, args.threshold)
    # A per-layer compare that paired nothing checked nothing: never a pass.
    layers_ok = not args.per_layer or per_layer["coverage"]["matched"] > 0
    return {
        "reference_kind": "onnxruntime" if onnx_ref else "mnn",
        "inputs": [
            {
                "name": n,
                "shape": list(v.shape),
                "source": "file" if n in (args.inputs or {}) else "random",
                **({"file": Path((args.inputs or {})[n]).name} if n in (args.inputs or {}) else {}),
            }
            for n, v in inputs.items()
        ],
        "input_shapes": shapes_of(inputs),
        "seed": args.seed,
        "threshold": args.threshold,
        "runtime": tensors.runtime_record(args),
        "outputs": rows,
        **worst(rows),
        "passed": layers_ok and all(r["passed"] for r in rows),
        **per_layer,
        "warnings": notes + per_layer["warnings"],
    }
