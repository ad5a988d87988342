"""What a killed server leaves behind, and the sweep at the next start that removes it.

Every temporary file or folder the server makes has a name or place that says what it is, so a
later start can tell it from anything else (the list is in docs/architecture.md, "Leftovers of a
crash"). Only what was last changed before the start goes: whatever this server has begun since
is kept. Resumable downloads are not leftovers and stay (``.part`` files of job artifacts from a
bucket, the market's download cache), as do the files in a job's folder (a running job may
outlive the server).
"""

import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

import psutil

from server.core.fsutil import TEMP_NAME

log = logging.getLogger(__name__)

# Folders in the system's temp dir: ``mnnwb-<pid>-<kind>-<random>``, gone once <pid> has ended.
SCRATCH = re.compile(r"^mnnwb-(?P<pid>\d+)-")
# Anywhere in a project (``.git`` is not entered).
IN_PROJECTS = (
    TEMP_NAME,  # an atomic write: .<name>.<random>.tmp
    re.compile(r"^\..+\.(?P<pid>\d+)\.part(?:\.json)?$"),  # a model tool's output being written
    re.compile(r"^\..+\.[a-z0-9_]{8}\.partial$"),  # a market package being copied in
)
# In the data dir.
IN_DATA_DIR = (
    "market/staging/*",  # a market install's download, checked before it is copied in
    "market/builtin/.build-*",  # a build of the built-in packages
    "market/blobs/.blob-*",  # a registry blob being stored
    "checks/*/.*.tmp",  # a check report being written (an atomic write)
    "tool-runs/blobs/*/.*.tmp",  # a model file taken from a Git blob (an atomic write)
    "tool-runs/*/.inspect-*",  # a model converted for Inspect
    "tool-runs/.spare-*",  # the folder of a spare tool worker the server had started
)


def scratch_prefix(kind: str) -> str:
    """The name prefix of a temp folder this process makes in the system's temp dir."""
    return f"mnnwb-{os.getpid()}-{kind}-"


def _ended(pid: str | None) -> bool:
    return pid is None or (int(pid) != os.getpid() and not psutil.pid_exists(int(pid)))


def _remove(path: Path, before: float) -> bool:
    """Delete ``path`` (a whole folder) if it was last changed before ``before``."""
    try:
        stat = path.lstat()
        if stat.st_mtime >= before or stat.st_uid != os.getuid():
            return False
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except OSError:  # gone meanwhile, or not ours to delete
        return False
    return True


def _in_project(root: str | Path, before: float) -> int:
    removed = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in [*dirs, *files]:
            match = next(filter(None, (pattern.match(name) for pattern in IN_PROJECTS)), None)
            if match is not None and _ended(match.groupdict().get("pid")):
                if _remove(Path(folder, name), before):
                    removed += 1
                    if name in dirs:
                        dirs.remove(name)
    return removed


def _scratch(temp_dir: Path, before: float) -> int:
    found = ((entry, SCRATCH.match(entry.name)) for entry in temp_dir.iterdir())
    return sum(_remove(entry, before) for entry, match in found if match and _ended(match["pid"]))


def sweep(data_dir: Path, projects: Iterable[str | Path], before: float,
          temp_dir: Path | None = None) -> int:
    """Remove every leftover older than ``before`` (the start); how many went."""
    removed = sum(_in_project(root, before) for root in projects)
    removed += sum(_remove(path, before) for pattern in IN_DATA_DIR for path in data_dir.glob(pattern))
    removed += _scratch(temp_dir or Path(tempfile.gettempdir()), before)
    if removed:
        log.info("removed %d leftovers of an earlier run", removed)
    return removed
