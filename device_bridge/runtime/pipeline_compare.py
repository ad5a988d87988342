"""Two runs of one pipeline on the same inputs side by side (docs/pipelines.md#comparing-two-runs):
each stage's median and p90 in both, and where their outputs diverge — the first stage, in the
pipeline's order, whose items differ on some input.

Items diverge by kind: a different number of items or of boxes; classes whose top label differs;
boxes (and pictures cut from them: their rectangles) that overlap less than IoU 0.5, or whose
label differs; text that differs; numbers (a tensor's min, max, mean; an embedding's norm and
first values; a mask's share of pixels per class) further apart than ``TOLERANCE`` relative to the
larger (at least 1); a picture turned otherwise.
"""

from typing import Any

from device_bridge.runtime.steps import iou

MIN_IOU = 0.5
TOLERANCE = 0.01


def _numbers_apart(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is not b
    return abs(a - b) > TOLERANCE * max(1.0, abs(a), abs(b))


def _boxes(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> str | None:
    if len(a) != len(b):
        return f"{len(a)} boxes against {len(b)}"
    for index, (one, other) in enumerate(zip(a, b, strict=True)):
        if one.get("label") != other.get("label"):
            return f"box {index}: {one.get('label')!r} against {other.get('label')!r}"
        overlap = iou(one["box"], other["box"])
        if overlap < MIN_IOU:
            return f"box {index} overlaps its counterpart by IoU {overlap:.2f}"
    return None


def _output(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    kind = a.get("kind")
    if kind != b.get("kind"):
        return f"{kind} against {b.get('kind')}"
    if kind == "classes":
        top_a, top_b = (x["top"][0]["label"] if x["top"] else None for x in (a, b))
        return None if top_a == top_b else f"top label {top_a!r} against {top_b!r}"
    if kind == "boxes":
        return _boxes(a["boxes"], b["boxes"])
    if kind == "text":
        return None if a["text"] == b["text"] else f"{a['text']!r} against {b['text']!r}"
    if kind == "mask":
        share = {c["label"]: c["pixels"] / max(1, a["size"][0] * a["size"][1]) for c in a["classes"]}
        other = {c["label"]: c["pixels"] / max(1, b["size"][0] * b["size"][1]) for c in b["classes"]}
        apart = [k for k in share.keys() | other.keys()
                 if _numbers_apart(share.get(k, 0.0), other.get(k, 0.0))]
        return f"the share of {sorted(map(str, apart))[0]!r} differs" if apart else None
    fields = ("min", "max", "mean") if kind == "tensor" else ("norm",)
    values = [(a.get(f), b.get(f)) for f in fields]
    values += list(zip(a.get("head", []), b.get("head", []), strict=False))
    return "numbers differ" if any(_numbers_apart(x, y) for x, y in values) else None


def _picture(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    if a["rotated"] != b["rotated"]:
        return f"turned {a['rotated']}° against {b['rotated']}°"
    rect = [[p["x"], p["y"], p["x"] + p["width"], p["y"] + p["height"]] for p in (a, b)]
    overlap = iou(rect[0], rect[1])
    return None if overlap >= MIN_IOU else f"the pictures overlap by IoU {overlap:.2f}"


def item_divergence(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Why two items of one stage differ, or None."""
    if "outputs" in a:
        for name in a["outputs"].keys() | b.get("outputs", {}).keys():
            if name not in a["outputs"] or name not in b.get("outputs", {}):
                return f"output {name!r} only in one"
            why = _output(a["outputs"][name], b["outputs"][name])
            if why:
                return f"{name}: {why}"
        return None
    if "boxes" in a:
        return _boxes(a["boxes"], b.get("boxes", []))
    return _picture(a, b)


def stage_divergence(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """Why one stage's items differ between two runs of one input, or None."""
    if len(a["items"]) != len(b["items"]):
        return f"{len(a['items'])} items against {len(b['items'])}"
    for index, (one, other) in enumerate(zip(a["items"], b["items"], strict=True)):
        why = item_divergence(one, other)
        if why:
            return f"item {index}: {why}"
    return None


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two results (``pipeline_batch.run_batch``'s) of one pipeline: per stage both runs'
    figures and the inputs it diverges on; the first divergence in the pipeline's order."""
    runs_b = {run["input"]: run for run in b["inputs"]}
    shared = [(run, runs_b[run["input"]]) for run in a["inputs"] if run["input"] in runs_b]
    ids = [s["id"] for s in a["inputs"][0]["stages"]] if a["inputs"] else []
    stages = []
    for ident in ids:
        diverged = []
        for run_a, run_b in shared:
            stage_a = next(s for s in run_a["stages"] if s["id"] == ident)
            stage_b = next((s for s in run_b["stages"] if s["id"] == ident), None)
            why = "not in the other run" if stage_b is None else stage_divergence(stage_a, stage_b)
            if why:
                diverged.append({"input": run_a["input"], "reason": why})
        stages.append({"id": ident, "a": a["summary"]["stages"].get(ident),
                       "b": b["summary"].get("stages", {}).get(ident), "diverged": diverged})
    first = next(({"stage": s["id"], **s["diverged"][0]} for s in stages if s["diverged"]), None)
    return {
        "inputs": [run["input"] for run, _ in shared],
        "unmatched": sorted({r["input"] for r in a["inputs"]} ^ {r["input"] for r in b["inputs"]}),
        "end_to_end": {"a": a["summary"].get("end_to_end"), "b": b["summary"].get("end_to_end")},
        "stages": stages,
        "first_divergence": first,
    }
