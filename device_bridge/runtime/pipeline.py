"""Pipelines: models and Python steps chained as one thing (``pipeline.toml``, docs/pipelines.md).

A pipeline's stages run in the order the file lists them; each reads one earlier stage (or the
pipeline's ``image``) and gives a list of items, one per item it read — a model stage runs once
per item it reads (a detector once per photo, a recogniser once per crop), ``crop`` gives one
item per box. The same code runs on the server's tool workers and on the device agent; models
are opened through ``engine.Session`` and fed through their spec (``spec``, ``preprocess``,
``decode``), so a model without a spec, or a dynamic dim with no shape, is refused by name.
"""

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import decode, pipeline_audio, pipeline_user, preprocess
from device_bridge.runtime import spec as model_spec
from device_bridge.runtime.pipeline_audio import Audio
from device_bridge.runtime.pipeline_spec import (  # noqa: F401 - re-exported: one import for callers
    INPUT,
    STEP_PARAMS,
    Pipeline,
    PipelineError,
    Stage,
    load,
    parse,
    with_variants,
)
from device_bridge.runtime.pipeline_steps import Item, ModelItem, run_step
from device_bridge.runtime.steps import Picture, StepError


class _Model:
    def __init__(self, stage: Stage, opener: Callable[[Stage], Any]) -> None:
        assert stage.model is not None
        found = model_spec.load(stage.model)
        if found is None:
            raise PipelineError(
                f"stage {stage.id!r}",
                f"{stage.model.name} has no spec "
                f"({model_spec.sidecar(stage.model).name}): declare its input first",
            )
        self.spec = found
        self.session = opener(stage)
        names = list(self.session.input_shapes)
        if len(names) != 1:
            raise PipelineError(
                f"stage {stage.id!r}",
                f"a pipeline stage feeds one input; {stage.model.name} has {len(names)}",
            )
        self.name = names[0]
        own = self.spec.input(self.name)
        if own is None or own.kind not in ("image", "audio"):
            raise PipelineError(
                f"stage {stage.id!r}",
                f"the spec of {stage.model.name} must declare input {self.name!r} as an image or audio",
            )
        self.input = own
        shape = stage.shape or own.run_shape()
        if shape is None and own.kind == "audio" and -1 not in own.shape[:-1]:
            shape = list(own.shape)  # the clip's length fills the open last dim
        if shape is None:
            raise PipelineError(
                f"stage {stage.id!r}.shape",
                f"input {self.name!r} of {stage.model.name} "
                "has dynamic dims and neither the stage nor the spec gives a shape",
            )
        if len(shape) != len(own.shape) or any(
            f > 0 and f != s for f, s in zip(own.shape, shape, strict=False)
        ):
            raise PipelineError(f"stage {stage.id!r}.shape", f"{shape} does not fit the declared {own.shape}")
        self.shape = shape
        if stage.batch > 1 and own.shape[0] != -1:
            raise PipelineError(
                f"stage {stage.id!r}.batch",
                f"input {self.name!r} of {stage.model.name} has a fixed batch dim ({own.shape[0]}); "
                "batching needs it dynamic (-1 in its spec)",
            )
        self.batch = stage.batch
        self.fit, self.multiple = stage.fit, stage.multiple
        self.max_side, self.min_side = stage.max_side, stage.min_side
        self.lists = {o.name: self._lists(stage.model, o) for o in self.spec.outputs}

    @staticmethod
    def _lists(model: Path, output: model_spec.OutputSpec) -> dict[str, list[str] | None]:
        labels = output.labels or (
            model_spec.read_list(model, output.labels_file) if output.labels_file else None
        )
        characters = (
            list(output.characters)
            if output.characters
            else (model_spec.read_list(model, output.characters_file) if output.characters_file else None)
        )
        return {"labels": labels, "characters": characters}

    def many(
        self,
        prepared: list[tuple[np.ndarray, preprocess.Frame | None]],
        pictures: list[Picture | Audio],
        parents: list[int],
    ) -> list[ModelItem]:
        """Prepared pictures (``_tensor``, all of one shape) in one session call, stacked on the
        batch dim; each item decoded from its own row of each output."""
        raw = self.session.run({self.name: np.concatenate([tensor for tensor, _ in prepared])})
        for name, value in raw.items():
            if value.ndim == 0 or value.shape[0] != len(prepared):
                raise StepError(
                    f"output {name!r} of a batch of {len(prepared)} has shape {list(value.shape)}, "
                    "not one row per item"
                )
        return [
            self._item({name: value[i : i + 1] for name, value in raw.items()}, frame, picture, parent)
            for i, ((_, frame), picture, parent) in enumerate(zip(prepared, pictures, parents, strict=True))
        ]

    def reads(self, item: "Item") -> bool:
        """Whether the stage's input takes this item (a picture, or a clip for an audio input)."""
        return isinstance(item, Audio if self.input.kind == "audio" else Picture)

    def _tensor(self, picture: "Picture | Audio") -> tuple[np.ndarray, preprocess.Frame | None]:
        if isinstance(picture, Audio):
            return pipeline_audio.tensor(self.input, self.shape, picture), None
        pixels = picture.pixels
        if self.input.color == "BGR":
            pixels = pixels[:, :, ::-1]
        elif self.input.color == "GRAY" and pixels.shape[2] == 3:
            pixels = (pixels @ np.array([0.299, 0.587, 0.114])).astype(np.uint8)[:, :, None]
        if self.fit == "aspect":
            tensor, frame = preprocess.aspect_tensor(
                self.input, self.shape, pixels, self.multiple, self.max_side, self.min_side
            )
        else:
            tensor, frame = preprocess.image_tensor(self.input, self.shape, pixels)
        return tensor, frame

    def _item(
        self,
        raw: dict[str, np.ndarray],
        frame: preprocess.Frame | None,
        picture: "Picture | Audio",
        parent: int,
    ) -> ModelItem:
        outputs = {}
        for name, value in raw.items():
            own = self.spec.output(name)
            try:
                outputs[name] = decode.decode(own, value, frame=frame, **self.lists.get(name, {}))
            except decode.DecodeError as exc:
                outputs[name] = {"kind": "error", "error": str(exc)}
            if outputs[name].get("kind") == "boxes" and isinstance(picture, Picture):  # onto the input
                for row in outputs[name]["boxes"]:
                    row["box"] = [
                        row["box"][0] + picture.x,
                        row["box"][1] + picture.y,
                        row["box"][2] + picture.x,
                        row["box"][3] + picture.y,
                    ]
        return ModelItem(outputs, raw, frame, picture if isinstance(picture, Picture) else None, parent)


def _open(stage: Stage) -> Any:
    """The stage's model in an MNN session with its threads, backend and precision."""
    from device_bridge.runtime.engine import ModelError, Session

    assert stage.model is not None
    try:
        return Session(stage.model, stage.threads, stage.backend, stage.precision)
    except ModelError as exc:
        raise PipelineError(f"stage {stage.id!r}.model", str(exc)) from None


def _session_mb(model: _Model) -> float | None:
    """The stage's MNN session memory in MB (``engine.Session.memory_mb``); None for an opener
    whose sessions do not say."""
    measure = getattr(model.session, "memory_mb", None)
    return float(measure()) if callable(measure) else None


def peak_rss_mb() -> float | None:
    """The process's peak resident memory in MB so far (``getrusage``); None where there is none."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024  # bytes there, KiB here


class Stopped(Exception):
    """The run was asked to stop (``Runner.should_stop``) between two stages of an input."""


class Runner:
    """A pipeline ready to run: its models opened once (``opener(stage)`` gives an object with
    ``input_shapes`` and ``run(feeds)``, an ``engine.Session`` by default). ``should_stop`` is
    asked between stages; true ends the input with ``Stopped``."""

    def __init__(self, pipeline: Pipeline, opener: Callable[[Stage], Any] | None = None) -> None:
        opener = opener or _open
        self.pipeline = pipeline
        self.should_stop: Callable[[], bool] = lambda: False
        self.models = {s.id: _Model(s, opener) for s in pipeline.stages if s.model is not None}
        self.user = {
            s.id: pipeline_user.load(s, pipeline.folder)
            for s in pipeline.stages
            if s.step is not None and s.step not in STEP_PARAMS
        }
        # Imported now, so the first input's times are the stages' own and not an import's.
        import PIL.Image  # noqa: F401

        if any(s.step == "map_to_boxes" for s in pipeline.stages):
            try:
                import scipy.ndimage  # noqa: F401
            except ImportError:  # the flood fill in steps.py stands in
                pass

    def _model_stage(
        self, stage: Stage, items: list[Item], started: float, timeline: list[dict[str, Any]]
    ) -> tuple[list[Item], float | None]:
        """A model stage's items, one session call per item or, with ``batch = N``, per up to N
        consecutive items fed at one shape (a timeline span per call, ``batch`` its items); and
        the most memory its session took."""
        model = self.models[stage.id]
        out: list[Item] = []
        memory: float | None = None
        index = 0
        while index < len(items):
            call_start = time.perf_counter()
            group: list[tuple[np.ndarray, preprocess.Frame | None]] = []
            pictures: list[Picture | Audio] = []
            while index + len(group) < len(items) and len(group) < model.batch:
                item = items[index + len(group)]
                if not isinstance(item, Picture | Audio) or not model.reads(item):
                    wants = "clips" if model.input.kind == "audio" else "pictures"
                    given = type(item).__name__
                    raise StepError(f"a model stage reads {wants}; {stage.input!r} gives {given}")
                prepared = model._tensor(item)
                if group and prepared[0].shape != group[0][0].shape:
                    break  # another shape: the next call starts with it (prepared again then)
                group.append(prepared)
                pictures.append(item)
            if model.batch == 1:
                raw = model.session.run({model.name: group[0][0]})
                out.append(model._item(raw, group[0][1], pictures[0], index))
            else:
                out.extend(model.many(group, pictures, list(range(index, index + len(group)))))
            used = _session_mb(model)  # a session grows with the shape it was resized to
            if used is not None:
                memory = max(memory or 0.0, used)
            span = {"stage": stage.id, "item": index, "start_ms": (call_start - started) * 1000,
                    "end_ms": (time.perf_counter() - started) * 1000}
            timeline.append(span if model.batch == 1 else {**span, "batch": len(group)})
            index += len(group)
        return out, memory

    def _input(self, path: Path | np.ndarray) -> Picture | Audio:
        """The input file: a picture, or a ``.wav`` read for the first stage's audio input; or a
        camera's frame already decoded (RGB ``uint8`` height × width × 3)."""
        if isinstance(path, np.ndarray):
            return Picture(path)
        if path.suffix.lower() not in preprocess.AUDIO_SUFFIXES:
            return Picture(preprocess.decode_image(path))
        first = next((s for s in self.pipeline.stages if s.input == INPUT), None)
        model = self.models.get(first.id) if first is not None else None
        if model is None or model.input.kind != "audio":
            raise preprocess.InputFileError(path, "is audio; the pipeline's first stage takes no audio input")
        assert first is not None and first.model is not None
        return pipeline_audio.read(path, model.input, first.model.name)

    def run(self, image: Path | np.ndarray) -> dict[str, Any]:
        """Every stage's items for one input image (a file, or a frame's RGB pixels: then the
        ``image`` stage's time is only the wrapping), their times and the end-to-end time; a model
        stage's ``memory_mb`` is its MNN session's (the most over its items), a step's None; the
        run's ``memory_mb`` is all the pipeline's sessions together, ``peak_rss_mb`` the process's
        peak resident memory."""
        started = time.perf_counter()
        source = self._input(image)
        decoded = (time.perf_counter() - started) * 1000
        values: dict[str, list[Item]] = {INPUT: [source]}
        timeline: list[dict[str, Any]] = [{"stage": INPUT, "item": 0, "start_ms": 0.0, "end_ms": decoded}]
        report: list[dict[str, Any]] = [
            {
                "id": INPUT,
                "kind": "input",
                "input": None,
                "ms": decoded,
                "memory_mb": None,
                "items": [values[INPUT][0].summary()],
            }
        ]
        for stage in self.pipeline.stages:
            if self.should_stop():
                raise Stopped()
            items = values[stage.input]
            stage_start = time.perf_counter()
            memory: float | None = None  # a step's is not measured
            try:
                if stage.model is not None:
                    out, memory = self._model_stage(stage, items, started, timeline)
                else:
                    user = self.user.get(stage.id)
                    out = pipeline_user.run(stage, user, items) if user else run_step(stage, items, values)
                    timeline.append(
                        {
                            "stage": stage.id,
                            "item": None,
                            "start_ms": (stage_start - started) * 1000,
                            "end_ms": (time.perf_counter() - started) * 1000,
                        }
                    )
            except StepError as exc:
                raise PipelineError(f"stage {stage.id!r}", str(exc)) from None
            values[stage.id] = out
            report.append(
                {
                    "id": stage.id,
                    "kind": stage.kind,
                    "input": stage.input,
                    "ms": (time.perf_counter() - stage_start) * 1000,
                    "memory_mb": memory,
                }
            )
        whole = (time.perf_counter() - started) * 1000
        sessions = [m for m in (_session_mb(model) for model in self.models.values()) if m is not None]
        # Summarised after the clock stops: the stages then tile the whole but for the loop itself.
        for entry in report[1:]:
            entry["items"] = [item.summary() for item in values[entry["id"]]]
        return {
            "ms": whole,
            "memory_mb": sum(sessions) if sessions else None,
            "peak_rss_mb": peak_rss_mb(),
            "stages": report,
            "timeline": timeline,
            **(
                {"audio": source.summary()}
                if isinstance(source, Audio)
                else {"image": {"width": int(source.pixels.shape[1]), "height": int(source.pixels.shape[0])}}
            ),
        }
