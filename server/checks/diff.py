"""Start a model diff: each side is a working-tree file or a file at a Git revision.

A side at a revision is written out of Git once into its own blob folder (the same store the
Git diff's model summaries use), then both sides go to one ``diff`` worker run of the project.
"""

from pathlib import Path
from typing import Any

from sqlmodel import Session

from server.checks.models import DiffRequest
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files.paths import resolve
from server.gitflow.blobs import read_blob
from server.modeltools import shapes
from server.modeltools.blobs import blob_file
from server.modeltools.formats import BadModelFile, check_model_file
from server.modeltools.models import ToolRunPublic
from server.modeltools.prepare import checked_shapes
from server.modeltools.service import ToolManager
from server.projects.models import Project


def _checked(path: Path, allowed: tuple[str, ...]) -> str:
    try:
        check_model_file(path, allowed)
    except BadModelFile as exc:
        raise Invalid(str(exc), code=ErrorCode.BAD_MODEL_FILE) from None
    return str(path)


def _side(data_dir: Path, project: Project, rel: str, rev: str | None) -> str:
    if rev is None:
        return _checked(resolve(project.path, rel), (".mnn",))
    if not rel.lower().endswith(".mnn"):
        raise Invalid(f"{rel}: a diff takes .mnn models", code=ErrorCode.BAD_MODEL_FILE)
    data, sha = read_blob(project.path, rev, rel)
    return _checked(blob_file(data_dir, rel, data, sha), (".mnn",))


def _existing(root: str, rel: str) -> str:
    path = resolve(root, rel)
    if not path.is_file():
        raise Invalid(f"{rel}: file not found", code=ErrorCode.BAD_INPUT_FILE)
    return str(path)


def _check_shapes(worker: dict[str, Any]) -> None:
    """Refuse, before a worker starts, a dynamic dim of A nobody gave, or a B (or reference)
    that fixes an input to another shape than A runs at: the two are compared at one shape."""
    sizes = checked_shapes(shapes.declared(worker["model"]), worker["input_shapes"], worker["inputs"])
    for side in (worker["other"], worker["reference"]):
        found = shapes.declared(side) if side and sizes is not None else None
        if found is not None and sizes is not None:
            shared = [spec for spec in found if spec.name in sizes]
            checked_shapes(shared, {spec.name: sizes[spec.name] for spec in shared})


def start_diff(
    data_dir: Path, tools: ToolManager, session: Session, project: Project, body: DiffRequest, owner: str
) -> ToolRunPublic:
    model = _side(data_dir, project, body.a, body.rev_a)
    other = _side(data_dir, project, body.b or body.a, body.rev_b)
    worker = {
        "model": model,
        "other": other,
        "reference": body.reference and _checked(resolve(project.path, body.reference), (".onnx", ".mnn")),
        "inputs": {name: _existing(project.path, rel) for name, rel in (body.inputs or {}).items()},
        "input_shapes": body.input_shapes,
        "threads": body.threads,
        "loops": body.loops,
    }
    _check_shapes(worker)
    stored = body.model_dump(exclude_none=True)
    # The two sides live in the data directory's blob store, which the sandbox does not show.
    return tools.launch(session, project, "diff", stored, worker, owner,
                        readable=(Path(model), Path(other)))
