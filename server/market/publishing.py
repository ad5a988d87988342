"""What a version published from a project says about itself (docs/market.md, "Publishing").

Each fact comes from the first place that has it: the publish request, an ``algorithm.toml``
among the listed files, the model's spec (``<model>.model.toml``, docs/model-spec.md), then the
package's previous version. Figures — accuracy, its evaluation set, latency — describe one model
only: they come from the request, or from an ``algorithm.toml`` the publisher wrote for this
publish (one listing no files); never from an installed package's manifest, a previous version
or a spec.
"""

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from device_bridge.runtime import spec as model_spec
from device_bridge.runtime.spec import SpecError
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.market.package import (
    MANIFEST_NAME,
    Demo,
    FileEntry,
    LatencyFigure,
    Metrics,
    PackageManifest,
    parse_manifest,
)
from server.market.schemas import PublishRequest
from server.modeltools import specs
from server.training.artifacts import ARTIFACTS_DIR

IMAGE_ONLY = ("color", "resize", "scale")


@dataclass(frozen=True)
class Sources:
    """Where a new version's facts may come from, besides the request."""

    toml: PackageManifest | None  # an algorithm.toml among the listed files
    previous: dict[str, Any]  # the package's last published manifest ({} for a new id)
    spec_io: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None  # the model's spec


def listed_toml(files: dict[str, Path]) -> PackageManifest | None:
    toml = next((p for rel, p in files.items() if PurePosixPath(rel).name == MANIFEST_NAME), None)
    return parse_manifest(toml.read_text(encoding="utf-8")) if toml is not None else None


def package_paths(files: dict[str, Path]) -> dict[str, str]:
    """Project path → path in the package. With an ``algorithm.toml``: relative to its folder
    (so an installed package republishes as it was). Without: relative to the deepest folder
    holding every listed file, a pulled job artifact (``artifacts/<job id>/x``) counting as the
    job wrote it (``x``) — so no path of this project or of a job reaches the package, and files
    keep their places beside each other (a demo finds its model as it did)."""
    tomls = [PurePosixPath(rel) for rel in files if PurePosixPath(rel).name == MANIFEST_NAME]
    if len(tomls) > 1:
        raise Invalid(f"list at most one {MANIFEST_NAME}", code=ErrorCode.BAD_MANIFEST)
    if not tomls:
        return _plain_paths(list(files))
    folder = tomls[0].parent
    outside = [rel for rel in files if not PurePosixPath(rel).is_relative_to(folder)]
    if outside:
        raise Invalid(f"{outside[0]} is outside the folder of {tomls[0]}", code=ErrorCode.OUTSIDE_PACKAGE)
    return {rel: PurePosixPath(rel).relative_to(folder).as_posix() for rel in files
            if PurePosixPath(rel) != tomls[0]}


def _as_job_wrote(rel: str) -> PurePosixPath:
    parts = PurePosixPath(rel).parts
    if len(parts) > 2 and parts[0] == ARTIFACTS_DIR:
        return PurePosixPath(*parts[2:])
    return PurePosixPath(rel)


def _plain_paths(rels: list[str]) -> dict[str, str]:
    placed = {rel: _as_job_wrote(rel) for rel in rels}
    common = os.path.commonprefix([p.parent.parts for p in placed.values()])
    names: dict[str, str] = {}
    for rel, path in placed.items():
        name = PurePosixPath(*path.parts[len(common):]).as_posix()
        clash = next((other for other, taken in names.items() if taken == name), None)
        if clash is not None:
            raise Invalid(f"{clash} and {rel} would both be {name} in the package",
                          code=ErrorCode.DUPLICATE_PATH, path=name)
        names[rel] = name
    return names


def spec_io(model: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    """The inputs and outputs the spec beside ``model`` declares, as a package lists them (the
    labels of a ``labels_file`` read in); None without a spec, 422 ``bad_model_spec`` if bad."""
    spec = specs.load(model)
    if spec is None:
        return None
    inputs = []
    for entry in spec.to_dict()["inputs"]:
        if entry.get("kind") != "image":
            entry = {k: v for k, v in entry.items() if k not in IMAGE_ONLY}
        elif entry.get("layout") in ("NCHW", "NHWC"):
            shape = entry.get("default_shape") or entry["shape"]
            height, width = shape[2:4] if entry["layout"] == "NCHW" else shape[1:3]
            if height > 0 and width > 0:
                entry["size"] = [height, width]
        inputs.append(entry)
    outputs = []
    for entry in spec.to_dict()["outputs"]:
        listed = entry.pop("labels_file", None)
        entry.pop("characters_file", None)
        if listed is not None:
            try:
                entry["labels"] = model_spec.read_list(model, listed)
            except (SpecError, OSError, UnicodeDecodeError) as exc:
                raise Invalid(f"model spec: labels_file {listed}: {exc}",
                              code=ErrorCode.BAD_MODEL_SPEC) from None
        outputs.append(entry)
    return inputs, outputs


def _own_figures(toml: PackageManifest | None) -> Metrics:
    """The toml's figures when the publisher wrote it for this publish (it lists no files). A
    package's own manifest — an installed package, changed or not — carries none: the figures
    of the new version are for its publisher to give."""
    if toml is None or toml.files:
        return Metrics()
    return toml.metrics.model_copy(update={"size_bytes": None})


def metrics(body: PublishRequest, toml: PackageManifest | None, entries: list[FileEntry],
            measured: list[LatencyFigure]) -> Metrics:
    """The version's figures: the request's accuracy, else the toml's own; the toml's latency
    and the benchmark runs the lineage recorded on the model; the model file's size."""
    figures = _own_figures(toml)
    if body.accuracy is not None:
        figures.accuracy, figures.eval_set = body.accuracy, body.eval_set
    model = next((e for e in entries if e.role == "model"), None)
    figures.size_bytes = model.size if model else None
    figures.latency = [*figures.latency, *measured]
    return figures


def _demo(toml: PackageManifest | None, entries: list[FileEntry]) -> Demo | None:
    paths = {e.path for e in entries}
    if toml is not None and toml.demo is not None and toml.demo.entry in paths:
        return toml.demo
    script = next((e.path for e in entries if e.role == "demo"), None)
    return Demo(entry=script) if script else None


def manifest(body: PublishRequest, publisher: str, found: Sources, entries: list[FileEntry],
             figures: Metrics) -> PackageManifest:
    toml = found.toml.model_dump() if found.toml is not None else {}
    base = toml or found.previous
    inputs, outputs = toml.get("inputs"), toml.get("outputs")
    if not inputs and not outputs and found.spec_io is not None:
        inputs, outputs = found.spec_io
    if not inputs and not outputs:
        inputs, outputs = found.previous.get("inputs"), found.previous.get("outputs")
    return PackageManifest(
        id=body.id, version=body.version, name=body.name or base.get("name") or body.id,
        task=body.task if body.task is not None else base.get("task", ""),
        summary=body.summary if body.summary is not None else base.get("summary", ""),
        license=body.license if body.license is not None else base.get("license", ""),
        authors=body.authors or base.get("authors") or [publisher],
        inputs=inputs or [], outputs=outputs or [], metrics=figures,
        demo=_demo(found.toml, entries), files=entries)
