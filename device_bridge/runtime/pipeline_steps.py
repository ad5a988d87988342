"""The items a pipeline's stages pass on, and its steps (``map_to_boxes``, ``nms``, ``crop``,
``rotate``; docs/pipelines.md#stages) run on them. Part of ``pipeline.py``'s runtime."""

from dataclasses import dataclass
from typing import Any

import numpy as np

from device_bridge.runtime import preprocess, steps
from device_bridge.runtime.pipeline_audio import Audio
from device_bridge.runtime.pipeline_spec import INPUT, Stage
from device_bridge.runtime.steps import Boxes, Picture, StepError


@dataclass
class ModelItem:
    """What one model run on one item gave: decoded outputs and the raw arrays."""

    outputs: dict[str, Any]
    raw: dict[str, np.ndarray]
    frame: preprocess.Frame | None
    picture: Picture | None
    parent: int

    def summary(self) -> dict[str, Any]:
        return {"kind": "model", "outputs": self.outputs}


Item = Picture | Audio | Boxes | ModelItem


def _boxes_of(item: Item) -> list[dict[str, Any]] | None:
    """The boxes an item holds: a step's, or those a model's outputs decoded; None for a picture."""
    if isinstance(item, Boxes):
        return item.rows
    if isinstance(item, ModelItem):
        return [row for out in item.outputs.values() if out.get("kind") == "boxes" for row in out["boxes"]]
    return None


def _top(item: Item) -> tuple[str, float] | None:
    """A classifier item's top label and its score."""
    if isinstance(item, ModelItem):
        for output in item.outputs.values():
            if output.get("kind") == "classes" and output["top"]:
                return str(output["top"][0]["label"]), float(output["top"][0]["score"])
    return None


def run_step(stage: Stage, items: list[Item], values: dict[str, list[Item]]) -> list[Item]:
    """A step stage's items from its input's (``values``: every earlier stage's items)."""
    params = stage.params
    if stage.step == "map_to_boxes":
        found: list[Item] = []
        for index, item in enumerate(items):
            if not isinstance(item, ModelItem) or item.frame is None:
                raise StepError(f"map_to_boxes reads a model stage's output, not {type(item).__name__}")
            name = params.get("output", next(iter(item.raw)))
            if name not in item.raw:
                raise StepError(f"the model gave no output {name!r}; it gave {sorted(item.raw)}")
            dx, dy = (item.picture.x, item.picture.y) if item.picture else (0.0, 0.0)
            rows = []
            if params.get("quads"):
                for corners, score in steps.map_to_quads(
                    item.raw[name],
                    float(params.get("threshold", 0.3)),
                    int(params.get("min_area", 4)),
                    float(params.get("min_score", 0.0)),
                    float(params.get("unclip", 0.0)),
                ):
                    quad = [
                        [round(x + dx, 2), round(y + dy, 2)]
                        for x, y in (item.frame.to_file(cx, cy) for cx, cy in corners)
                    ]
                    xs, ys = [c[0] for c in quad], [c[1] for c in quad]
                    rows.append(
                        {
                            "box": [min(xs), min(ys), max(xs), max(ys)],
                            "quad": quad,
                            "score": round(score, 4),
                            "class": 0,
                            "label": params.get("label", "object"),
                        }
                    )
            for x1, y1, x2, y2, score in [] if params.get("quads") else steps.map_to_boxes(
                item.raw[name],
                float(params.get("threshold", 0.3)),
                int(params.get("min_area", 4)),
                float(params.get("min_score", 0.0)),
                float(params.get("unclip", 0.0)),
            ):
                a, b = item.frame.to_file(x1, y1)
                c, d = item.frame.to_file(x2, y2)
                rows.append(
                    {
                        "box": [round(a + dx, 2), round(b + dy, 2), round(c + dx, 2), round(d + dy, 2)],
                        "score": round(score, 4),
                        "class": 0,
                        "label": params.get("label", "object"),
                    }
                )
            found.append(Boxes(steps.reading_order(rows) if params.get("reading_order") else rows, index))
        return found
    if stage.step == "nms":
        return [
            Boxes(steps.nms(item.rows, float(params.get("iou", 0.5))), index)
            for index, item in enumerate(items)
            if isinstance(item, Boxes)
        ]
    if stage.step == "crop":
        pictures = values[params.get("image", INPUT)]
        crops: list[Item] = []
        for index, item in enumerate(items):
            boxes = _boxes_of(item)
            if boxes is None:
                raise StepError("crop reads boxes")
            source = pictures[item.parent] if isinstance(item, Boxes) else pictures[index]
            if not isinstance(source, Picture):
                raise StepError(f"crop cuts from pictures; {params.get('image', INPUT)!r} gives none")
            crops += [
                steps.crop_quad(source, row["quad"], index)
                if "quad" in row
                else steps.crop(source, row["box"], int(params.get("pad", 0)), index)
                for row in boxes
            ]
        return crops
    # rotate
    by = values.get(params["by"]) if "by" in params else None
    turned: list[Item] = []
    for index, item in enumerate(items):
        if not isinstance(item, Picture):
            raise StepError("rotate turns pictures")
        top = _top(by[index]) if by is not None else None
        wanted = by is None or (
            top is not None
            and top[0] in params["when_labels"]
            and top[1] >= float(params.get("min_score", 0.0))
        )
        turned.append(steps.rotate(item, int(params.get("degrees", 180))) if wanted else item)
    return turned
