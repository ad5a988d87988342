"""One side of a diff as bytes: downloads of a file at a revision, and inspecting a model that
is not in the working tree.

The model tools read files inside a folder they are given, so a blob to inspect is written once,
named by its id, into ``<data_dir>/tool-runs/blobs/<id>/`` and inspected there as its own folder.
"""

import os
from pathlib import Path, PurePosixPath

from sqlmodel import Session

from server.core.errors import Invalid
from server.gitflow.diff import blob_at
from server.gitflow.repo import open_repo
from server.modeltools.models import ToolRunPublic
from server.modeltools.prepare import MODEL_INPUTS
from server.modeltools.service import ToolManager
from server.projects.models import Project

Folder = str | os.PathLike[str]


def read_blob(folder: Folder, rev: str, path: str) -> tuple[bytes, str]:
    with open_repo(folder) as repo:
        return blob_at(repo, rev, path)


def _blob_file(data_dir: Path, path: str, data: bytes, sha: str) -> Path:
    name = PurePosixPath(path)
    if name.suffix.lower() not in MODEL_INPUTS["inspect"]:
        raise Invalid(f"{name.name} is not a model file Inspect reads", code="bad_model_file")
    folder = data_dir / "tool-runs" / "blobs" / sha
    target = folder / f"{name.stem}@{sha[:7]}{name.suffix}"
    if not target.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{target.name}.part"
        partial.write_bytes(data)
        partial.replace(target)
    return target


def inspect_blob(
    data_dir: Path, tools: ToolManager, session: Session, project: Project, rev: str, path: str
) -> ToolRunPublic:
    """Start Inspect on ``path`` as it is at ``rev``; the run is the project's, like any other."""
    data, sha = read_blob(project.path, rev, path)
    target = _blob_file(data_dir, path, data, sha)
    # The run belongs to the project; only the folder the tool reads from is the blob's own.
    holder = Project(id=project.id, name=project.name, path=str(target.parent), owner_id=project.owner_id)
    return tools.start(session, holder, "inspect", {"model": target.name})
