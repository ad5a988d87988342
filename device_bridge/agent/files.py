"""The receiving side of a sync: compare a manifest with the session folder, take chunks, apply.

A ledger (``ledger.json`` beside the files) remembers what earlier syncs wrote, with sizes and
mtimes, so unchanged files are not re-hashed and only files a sync wrote are ever deleted — a
program's own outputs survive a re-deploy.
"""

import json
import re
from pathlib import Path
from typing import Any

from device_bridge.atomic import publish, write_json_atomic
from device_bridge.sync import UnsafePath, confined, sha256_file

PART_SUFFIX = ".mnnwb-part"
Entry = dict[str, Any]


def valid_entry(entry: Any) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("path"), str)
            and isinstance(entry.get("sha256"), str) and bool(re.fullmatch(r"[0-9a-f]{64}",
                                                                           entry["sha256"]))
            and isinstance(entry.get("size"), int) and entry["size"] >= 0)


class SyncReceiver:
    def __init__(self, root: Path, ledger: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self._ledger_path = ledger
        self._ledger: dict[str, list] = self._load()
        self._expected: dict[str, Entry] = {}
        self._written: list[str] = []
        self._failed: list[str] = []

    def _load(self) -> dict[str, list]:
        try:
            data = json.loads(self._ledger_path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self) -> None:
        write_json_atomic(self._ledger_path, self._ledger)

    def _current_hash(self, entry: Entry, target: Path) -> str | None:
        try:
            stat = target.stat()
        except OSError:
            return None
        known = self._ledger.get(entry["path"])
        if known and known[0] == stat.st_size and known[1] == stat.st_mtime_ns:
            return known[2]
        return sha256_file(target)

    def plan(self, files: list[Any], prune: bool = True) -> tuple[list[str], list[str], list[str]]:
        """Apply deletions (unless ``prune`` is false: only some files were listed); return
        (paths needed, paths deleted, paths refused)."""
        self._expected, self._written, self._failed = {}, [], []
        need, refused, listed = [], [], set()
        for entry in files:
            if not valid_entry(entry):
                refused.append(str(entry.get("path") if isinstance(entry, dict) else entry))
                continue
            path = entry["path"]
            listed.add(path)
            try:
                target = confined(self.root, path)
            except UnsafePath:
                refused.append(path)
                continue
            if self._current_hash(entry, target) == entry["sha256"]:
                stat = target.stat()
                self._ledger[path] = [stat.st_size, stat.st_mtime_ns, entry["sha256"]]
                continue
            self._expected[path] = entry
            need.append(path)
            if entry["size"] == 0:
                self._finish(path, target, b"", 0)
        deleted = self._delete_missing(listed) if prune else []
        self._save()
        return [p for p in need if p not in self._written], deleted, refused

    def _delete_missing(self, keep: set[str]) -> list[str]:
        deleted = []
        for path in sorted(set(self._ledger) - keep):
            del self._ledger[path]
            try:
                confined(self.root, path).unlink()
                deleted.append(path)
            except (OSError, UnsafePath):
                continue
        return deleted

    def chunk(self, header: dict[str, Any], payload: bytes) -> None:
        """Write one chunk; the last chunk of a file verifies its hash and moves it in place."""
        path, offset = header.get("path"), header.get("offset")
        entry = self._expected.get(path) if isinstance(path, str) else None
        if entry is None or not isinstance(offset, int) or offset < 0 or (
            header.get("total") != entry["size"] or offset + len(payload) > entry["size"]
        ):
            self._failed.append(str(path))
            return
        self._finish(entry["path"], confined(self.root, entry["path"]), payload, offset)

    def _finish(self, path: str, target: Path, payload: bytes, offset: int) -> None:
        entry = self._expected[path]
        part = target.with_name(target.name + PART_SUFFIX)
        part.parent.mkdir(parents=True, exist_ok=True)
        with part.open("r+b" if offset else "wb") as handle:
            handle.seek(offset)
            handle.write(payload)
        if offset + len(payload) < entry["size"]:
            return
        if sha256_file(part) != entry["sha256"]:
            part.unlink()
            self._failed.append(path)
            return
        publish(part, target)
        stat = target.stat()
        self._ledger[path] = [stat.st_size, stat.st_mtime_ns, entry["sha256"]]
        self._written.append(path)

    def finish(self) -> tuple[list[str], list[str]]:
        """End a sync: (written, failed); files announced but never completed count as failed."""
        missing = set(self._expected) - set(self._written) - set(self._failed)
        failed = sorted(set(self._failed) | missing)
        self._save()
        written = sorted(set(self._written))
        self._expected = {}
        return written, failed
