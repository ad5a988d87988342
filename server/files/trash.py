"""A project's trash: what the file tree deletes is moved here (in the data dir, outside the
project, so Git and the project's tools never see it) and can be put back where it was. It keeps
the newest ``KEEP`` entries of a project and none older than ``MAX_AGE_S``.

Each entry is a folder ``<trash>/<id>/`` with ``entry`` (the file or folder as it was, symlinks
as links) and ``meta.json`` (``{"path": …, "deleted_at": …}``). Ids sort by time.
"""

import json
import os
import re
import shutil
import time
import uuid
from pathlib import Path

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, NotFound
from server.files.paths import relative, resolve

KEEP = 50
MAX_AGE_S = 7 * 24 * 3600
_ID = re.compile(r"^[0-9a-f]{16}-[0-9a-f]{8}$")


def folder(settings: Settings, project_id: str) -> Path:
    return settings.data_dir / "trash" / project_id


def put(trash: Path, root: str, path: Path) -> str:
    """Move ``path`` (inside the project ``root``) into the trash; its id."""
    entry_id = f"{time.time_ns():016x}-{uuid.uuid4().hex[:8]}"
    home = trash / entry_id
    home.mkdir(parents=True)
    (home / "meta.json").write_text(json.dumps({"path": relative(root, path), "deleted_at": time.time()}))
    shutil.move(str(path), str(home / "entry"))  # a rename on one file system, a copy across
    _prune(trash)
    return entry_id


def restore(trash: Path, root: str, entry_id: str) -> Path:
    """Put an entry back where it was; refused when something stands there now."""
    home = trash / entry_id
    if not _ID.match(entry_id) or not (home / "meta.json").is_file():
        raise NotFound("nothing in the trash by that id (it was restored, or is older than the "
                       f"trash keeps: {KEEP} entries, {MAX_AGE_S // 86400} days)",
                       code=ErrorCode.NOT_IN_TRASH)
    rel = json.loads((home / "meta.json").read_text())["path"]
    target = resolve(root, rel)
    if os.path.lexists(target):
        raise Conflict(f"{rel} exists again: rename or delete it first", code=ErrorCode.EXISTS)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(home / "entry"), str(target))
    shutil.rmtree(home, ignore_errors=True)
    return target


def _prune(trash: Path) -> None:
    entries = sorted(p for p in trash.iterdir() if _ID.match(p.name))
    cutoff = time.time_ns() - MAX_AGE_S * 10**9
    for old in entries[:-KEEP] + [p for p in entries[-KEEP:] if int(p.name[:16], 16) < cutoff]:
        shutil.rmtree(old, ignore_errors=True)
