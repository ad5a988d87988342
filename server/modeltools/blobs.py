"""Inspecting a model that is not in the working tree: a blob out of Git as a model file.

The model tools read files inside a folder they are given, so a blob to inspect is written once,
named by its id, into ``<data_dir>/tool-runs/blobs/<id>/`` and inspected there as its own folder.
Model files are large and every version inspected leaves one, so the least recently used folders
are deleted once the blobs pass a total size or count.
"""

import os
import shutil
from pathlib import Path, PurePosixPath

from sqlmodel import Session

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.core.fsutil import write_bytes_atomic
from server.gitflow.blobs import read_blob
from server.modeltools.models import ToolRunPublic
from server.modeltools.prepare import MODEL_INPUTS
from server.modeltools.service import ToolManager
from server.projects.models import Project


def blob_file(data_dir: Path, path: str, data: bytes, sha: str) -> Path:
    """The blob as a model file in its own folder, written unless it already is there."""
    name = PurePosixPath(path)
    if name.suffix.lower() not in MODEL_INPUTS["inspect"]:
        raise Invalid(f"{name.name} is not a model file Inspect reads", code=ErrorCode.BAD_MODEL_FILE)
    folder = data_dir / "tool-runs" / "blobs" / sha
    target = folder / f"{name.stem}@{sha[:7]}{name.suffix}"
    folder.mkdir(parents=True, exist_ok=True)
    os.utime(folder)  # the folder's mtime is its last use
    if not target.is_file():
        write_bytes_atomic(target, data)
        prune_blobs(folder.parent, keep=folder)
    return target


# Past either bound, the least recently used blob folders are deleted.
BLOBS_MAX_BYTES = 1 << 30
BLOBS_MAX_COUNT = 64


def prune_blobs(blobs: Path, keep: Path) -> None:
    """Delete the least recently used folders under ``blobs`` until the rest fit both bounds;
    ``keep`` (the folder in use) counts first and is never deleted."""
    total = 0
    for count, (folder, size) in enumerate(_by_last_use(blobs, keep), start=1):
        total += size
        if folder != keep and (count > BLOBS_MAX_COUNT or total > BLOBS_MAX_BYTES):
            shutil.rmtree(folder, ignore_errors=True)


def _by_last_use(blobs: Path, keep: Path) -> list[tuple[Path, int]]:
    """The blob folders with their sizes: ``keep``, then the most recently used first."""
    found = []
    for folder in blobs.iterdir():
        try:
            size = sum(f.stat().st_size for f in folder.iterdir())
            found.append((folder != keep, -folder.stat().st_mtime, folder, size))
        except (FileNotFoundError, NotADirectoryError):  # deleted meanwhile, or not a folder
            continue
    return [(folder, size) for _, _, folder, size in sorted(found)]


def inspect_blob(
    data_dir: Path, tools: ToolManager, session: Session, project: Project, rev: str, path: str, owner: str
) -> ToolRunPublic:
    """Start Inspect on ``path`` as it is at ``rev``; the run is the project's, like any other."""
    data, sha = read_blob(project.path, rev, path)
    target = blob_file(data_dir, path, data, sha)
    # The run belongs to the project; only the folder the tool reads from is the blob's own.
    holder = Project(id=project.id, name=project.name, path=str(target.parent), owner_id=project.owner_id)
    return tools.start(session, holder, "inspect", {"model": target.name}, owner)
