"""Project files: listing, reading with encoding detection, atomic saves with ETags, file ops."""

import hashlib
import os
import shutil
import stat
import threading
from collections.abc import Iterable
from pathlib import Path

from charset_normalizer import from_bytes

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Conflict, Invalid, NotFound, TooLarge
from server.core.fsutil import atomic_write
from server.files import trash
from server.files.models import Entry, FileContent, FileOp, Saved
from server.files.paths import relative, resolve

HIDDEN_NAMES = frozenset({".git", "__pycache__", "node_modules"})
_save_locks: dict[str, threading.Lock] = {}
_save_locks_guard = threading.Lock()


def etag_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def _lock_for(path: Path) -> threading.Lock:
    with _save_locks_guard:
        return _save_locks.setdefault(str(path), threading.Lock())


def _entry(root: str, path: Path, info: os.stat_result) -> Entry:
    return Entry(
        name=path.name, path=relative(root, path), type="dir" if stat.S_ISDIR(info.st_mode) else "file",
        size=info.st_size, mtime=info.st_mtime,
    )


def list_dir(root: str, rel: str, show_all: bool = False) -> list[Entry]:
    folder = resolve(root, rel)
    if not folder.is_dir():
        raise NotFound(f"no such folder: {rel or '/'}")
    entries = []
    for item in os.scandir(folder):
        if not show_all and item.name in HIDDEN_NAMES:
            continue
        try:
            target = resolve(root, f"{rel}/{item.name}" if rel else item.name)
            info = target.stat()
        except (OSError, AppError):
            continue  # broken links and links out of the project are not shown
        entries.append(_entry(root, folder / item.name, info))
    return sorted(entries, key=lambda e: (e.type != "dir", e.name.casefold()))


def decode(data: bytes) -> tuple[str | None, str | None]:
    """Decode text, detecting its encoding; (None, None) for binary data."""
    if b"\x00" in data[:8192]:
        return None, None
    for encoding in ("utf-8",):
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            pass
    best = from_bytes(data).best()
    if best is None:
        return None, None
    return str(best), best.encoding


def read_file(root: str, rel: str, max_bytes: int) -> FileContent:
    path = _existing_file(root, rel)
    size = path.stat().st_size
    if size > max_bytes:
        raise TooLarge(f"the file is {size} bytes; download it instead", code=ErrorCode.TOO_LARGE)
    data = path.read_bytes()
    content, encoding = decode(data)
    return FileContent(
        path=relative(root, path), content=content, etag=etag_of(data), encoding=encoding,
        binary=content is None, size=len(data),
    )


def _existing_file(root: str, rel: str) -> Path:
    path = resolve(root, rel)
    if not path.is_file():
        raise NotFound(f"no such file: {rel}")
    return path


def save_file(root: str, rel: str, content: str, etag: str | None, encoding: str | None) -> Saved:
    """Save atomically; a stale ``etag`` gets a 409 carrying the current content."""
    path = resolve(root, rel)
    if path.is_dir() or not path.parent.is_dir():
        raise Invalid(f"cannot save {rel}: not a file in an existing folder", code=ErrorCode.BAD_PATH)
    with _lock_for(path):
        if path.exists():
            current = path.read_bytes()
            if etag is not None and etag != etag_of(current):
                text, _ = decode(current)
                raise Conflict(
                    "the file changed since you opened it",
                    current={"content": text, "etag": etag_of(current)},
                )
            if encoding is None:
                encoding = decode(current)[1]
        elif etag is not None:
            # The editor had the file open: writing would bring back what someone deleted.
            raise Conflict("the file was deleted since you opened it", code=ErrorCode.DELETED)
        try:
            data = content.encode(encoding or "utf-8")
        except (LookupError, UnicodeEncodeError) as exc:
            raise Invalid(f"cannot encode the text as {encoding}: {exc}", code=ErrorCode.ENCODING) from exc
        atomic_write(path, [data])
    return Saved(path=relative(root, path), etag=etag_of(data), size=len(data))


def apply_op(root: str, op: FileOp, trash_folder: Path | None = None) -> tuple[Path, str | None]:
    """mkdir / create / rename / delete; returns the path affected (the new one for rename) and,
    for a delete into ``trash_folder``, the trash entry's id."""
    path = resolve(root, op.path)
    if os.path.realpath(root) == str(path):
        raise Invalid("the project folder itself cannot be changed", code=ErrorCode.BAD_PATH)
    if op.op == "delete":
        if not os.path.lexists(path):
            raise NotFound(f"no such file: {op.path}")
        if trash_folder is not None:
            return path, trash.put(trash_folder, root, path)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        return path, None
    if op.op == "rename":
        if not op.to:
            raise Invalid("rename needs 'to'", code=ErrorCode.BAD_REQUEST)
        if not os.path.lexists(path):
            raise NotFound(f"no such file: {op.path}")
        target = resolve(root, op.to)
        _check_new(target, op.to)
        # The rename the user asked for, not an atomic write (device_bridge/atomic.py has those).
        os.rename(path, target)
        return target, None
    _make_parents(path, op.path)
    _check_new(path, op.path)
    if op.op == "mkdir":
        path.mkdir()
    else:
        atomic_write(path, [b""])
    return path, None


def _make_parents(path: Path, rel: str) -> None:
    """A new file or folder at ``a/b/c`` makes ``a/b`` as needed, as ``mkdir -p`` would."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise Conflict(f"a file stands where a folder of {rel} would be", code=ErrorCode.EXISTS) from exc


def _check_new(path: Path, rel: str) -> None:
    if os.path.lexists(path):
        raise Conflict(f"{rel} already exists", code=ErrorCode.EXISTS)
    if not path.parent.is_dir():
        raise NotFound(f"the folder of {rel} does not exist")


def store_upload(root: str, folder_rel: str, name: str, chunks: Iterable[bytes], limit: int) -> Path:
    """Stream one uploaded file into the project, refusing it past ``limit`` bytes."""
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise Invalid(f"invalid file name {name!r}", code=ErrorCode.BAD_PATH)
    folder = resolve(root, folder_rel)
    if not folder.is_dir():
        raise NotFound(f"no such folder: {folder_rel or '/'}")
    target = resolve(root, f"{folder_rel}/{name}" if folder_rel else name)
    if target.is_dir():
        raise Conflict(f"{name} is a folder", code=ErrorCode.EXISTS)
    try:
        atomic_write(target, chunks, limit=limit)
    except OverflowError as exc:
        raise TooLarge(f"{name} is larger than the upload limit of {limit} bytes") from exc
    return target


def entry_for(root: str, path: Path) -> Entry:
    return _entry(root, path, path.stat())


def raw_path(root: str, rel: str) -> Path:
    return _existing_file(root, rel)
