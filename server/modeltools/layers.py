"""Per-layer compare: every float tensor the .mnn model computes, paired with the reference's.

The converter renames and fuses: a Conv → BatchNormalization → Relu chain becomes one MNN op
whose output tensor takes the name of the chain's last ONNX tensor, while the op itself keeps
the name of the chain's first one; layout copies and rewrites add tensors the source never had
(``X__before_tr``, ``X__matmul_converted``). So each tensor of the model pairs with a reference
tensor, in order of trust:

1. ``name``: the reference has a tensor of the tensor's name (read from the file's op table,
   never the op's name, which may name the head of a fused chain);
2. ``mapping``: the reference has the tensor the converter derived it from (``X__before_tr``
   → ``X``);
3. ``position``: among the reference tensors between those paired with its neighbours in
   execution order, the unpaired ones of the same shape, when they are one run of consecutive
   nodes (a fused chain): the last of them. Several separate candidates stay unpaired.

Coverage counts the model's tensors that found a partner; the reference's tensors left alone
were fused away (or computed differently). ``first_divergent`` is the first layer whose error
crosses ``threshold``, or grows tenfold over the layer before it above a noise floor.
"""

import re
from pathlib import Path
from typing import Any

import numpy as np

from server.modeltools import mnnfile, tensors

MAX_LAYERS = 500
JUMP = 10.0  # an error this many times the previous layer's marks a divergence …
NOISE = 0.01  # … once it is above this share of the threshold (float rounding stays below)
_NOT_LAYERS = {"Input", "Const", "ConvertTensor", "Shape", "Rank", "Size"}
_VIEW_OPS = {"Flatten"}
_CONVERTER_SUFFIXES = ("__before_tr", "__matmul_converted")
_RASTER_STEP = re.compile(r"_raster_\d+$")

Trace = dict[str, np.ndarray]


def _file_ops(path: str) -> dict[str, tuple[str, list[str]]]:
    """Op name → (op type, output tensor names), from the file's op table."""
    try:
        ops = mnnfile.read_model(Path(path))["ops"]
    except ValueError:
        return {}
    return {op["name"]: (op["type"], op["outputs"]) for op in ops}


def layer_tensors(path: str) -> list[str]:
    """The tensors the file's layer ops compute, in the file's order."""
    return [name for kind, names in _file_ops(path).values() if kind not in _NOT_LAYERS for name in names]


def views(path: str) -> list[str]:
    """Tensors of ops MNN may run as views, with no callback (a Flatten)."""
    return [name for kind, names in _file_ops(path).values() if kind in _VIEW_OPS for name in names]


def with_views(trace: Trace, saved: dict[str, np.ndarray], order: list[str]) -> Trace:
    """The trace plus the saved view tensors it lacks, in the file's order."""
    if not any(name in saved and name not in trace for name in order):
        return trace
    found = {**saved, **trace}
    return {n: found[n] for n in [*order, *trace] if n in found and (n in trace or n in order)}


def run_traced(model: tensors.Loaded) -> Trace:
    """Run a fed session with MNN's per-op callback; tensor name → value, in execution order.

    MNN splits some ops into ``<op>_raster_<n>`` steps; the op's last step holds its output.
    """
    steps: dict[str, list[np.ndarray]] = {}

    def after(outputs: Any, info: Any) -> bool:
        steps[_RASTER_STEP.sub("", info.getName())] = [tensors.read(t) for t in outputs]
        return True

    model.net.runSessionWithCallBackInfo(model.session, lambda _tensors, _info: True, after)
    ops = _file_ops(model.path)
    trace: Trace = {}
    for op_name, values in steps.items():
        kind, names = ops.get(op_name, ("", [op_name]))
        if kind not in _NOT_LAYERS:
            trace.update(zip(names or [op_name], values, strict=False))
    return trace


def converted_from(name: str) -> str | None:
    """The source tensor a converter-made tensor stands for, or None."""
    for suffix in _CONVERTER_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


def _by_position(ours: Trace, theirs: Trace, found: dict[str, tuple[str, str]]) -> None:
    """Pair what is left by shape, between the partners of its paired neighbours."""
    order = {name: index for index, name in enumerate(theirs)}
    candidates, names = list(theirs), list(ours)
    for index, name in enumerate(names):
        if name in found:
            continue
        used = {partner for partner, _ in found.values()}
        low = max((order[found[n][0]] for n in names[:index] if n in found), default=-1)
        high = min((order[found[n][0]] for n in names[index + 1:] if n in found), default=len(theirs))
        same = [i for i in range(low + 1, high)
                if candidates[i] not in used and theirs[candidates[i]].shape == ours[name].shape]
        # One run of consecutive same-shape tensors is a chain fused into this op; anything
        # else is ambiguous, and a wrong partner would be worse than none.
        if same and same == list(range(same[0], same[-1] + 1)):
            found[name] = (candidates[same[-1]], "position")


def pair(ours: Trace, theirs: Trace) -> list[tuple[str, str, str]]:
    """(model tensor, reference tensor, how) in the model's execution order."""
    found = {name: (name, "name") for name in ours
             if name in theirs and theirs[name].size == ours[name].size}
    for name in ours:
        # A converter-made tensor holds its source's values, even beside a tensor of that name.
        source = converted_from(name)
        if name not in found and source in theirs and theirs[source].size == ours[name].size:
            found[name] = (source, "mapping")
    _by_position(ours, theirs, found)
    return [(name, *found[name]) for name in ours if name in found]


def first_divergent(rows: list[dict[str, Any]], threshold: float) -> dict[str, Any] | None:
    """The first layer whose error crosses the threshold or jumps over the previous layer's."""
    previous = None
    for row in rows:
        error = row["relative_error"]
        if error > threshold:
            why = f"relative error {error:.3g} is above the threshold {threshold:g}"
        elif previous is not None and error > JUMP * previous and error > NOISE * threshold:
            why = f"relative error {error:.3g} is over {JUMP:g}× the previous layer's {previous:.3g}"
        else:
            previous = error
            continue
        return {"name": row["name"], "model_name": row.get("model_name", row["name"]),
                "relative_error": error, "cosine": row["cosine"], "why": why}
    return None


def _row(ours: np.ndarray, theirs: np.ndarray, names: tuple[str, str, str]) -> dict[str, Any]:
    model_name, name, how = names
    row: dict[str, Any] = {"name": name, "shape": list(theirs.shape), "matched_by": how,
                           **tensors.errors(ours, theirs)}
    if model_name != name:
        row["model_name"] = model_name
    return row


def _no_match_reason(ours: Trace, theirs: Trace) -> str:
    if not ours:
        return "the model computes no float tensor that MNN's per-op callback could read"
    return (f"none of the model's {len(ours)} tensors pairs with one of the reference's "
            f"{len(theirs)} float tensors by name, by the converter's naming, or by shape at "
            "its place in the graph: the two are not the same network")


def report(ours: Trace, theirs: Trace, threshold: float) -> tuple[dict[str, Any], list[str]]:
    """Layer rows, coverage, fused-away reference tensors and the first divergent layer."""
    pairs = pair(ours, theirs)
    rows = [_row(ours[a], theirs[b], (a, b, how)) for a, b, how in pairs[:MAX_LAYERS]]
    partners = {b for _, b, _ in pairs}
    coverage: dict[str, Any] = {
        "matched": len(pairs),
        "of": len(ours),
        "by": {how: sum(1 for p in pairs if p[2] == how) for how in ("name", "mapping", "position")},
        "unmatched": [n for n in ours if n not in {a for a, _, _ in pairs}][:MAX_LAYERS],
    }
    notes = []
    if not pairs:
        coverage["reason"] = _no_match_reason(ours, theirs)
        notes.append(f"per-layer compare failed: {coverage['reason']}")
    result = {
        "layers": rows,
        "coverage": coverage,
        "fused_away": [n for n in theirs if n not in partners][:MAX_LAYERS],
        "first_divergent": first_divergent(rows, threshold),
    }
    return result, notes
