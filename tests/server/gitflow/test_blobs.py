"""Blobs written for Inspect are kept within a size and a count, least recently used going first."""

import os
import time
from pathlib import Path

import pytest
from dulwich.objects import Blob

from server.modeltools import blobs


def _write(data_dir: Path, data: bytes, last_used: float | None = None) -> Path:
    """A model blob written (or reused) for Inspect; ``last_used`` backdates its folder."""
    target = blobs.blob_file(data_dir, "net.onnx", data, Blob.from_string(data).id.decode())
    if last_used is not None:
        os.utime(target.parent, (last_used, last_used))
    return target


def _kept(data_dir: Path) -> set[str]:
    return {p.name for p in (data_dir / "tool-runs" / "blobs").iterdir()}


def test_past_the_count_the_least_recently_used_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blobs, "BLOBS_MAX_COUNT", 3)
    hour_ago = time.time() - 3600
    old, older, oldest = (_write(tmp_path, b"v%d" % i, hour_ago - 60 * i) for i in range(3))
    assert _write(tmp_path, b"v2") == oldest  # reused, so now the most recently used
    newest = _write(tmp_path, b"v3")
    assert _kept(tmp_path) == {p.parent.name for p in (old, oldest, newest)}
    assert oldest.read_bytes() == b"v2" and newest.read_bytes() == b"v3"


def test_past_the_size_the_least_recently_used_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blobs, "BLOBS_MAX_BYTES", 250)
    hour_ago = time.time() - 3600
    first = _write(tmp_path, b"a" * 100, hour_ago)
    second = _write(tmp_path, b"b" * 100, hour_ago + 60)
    assert _kept(tmp_path) == {first.parent.name, second.parent.name}
    third = _write(tmp_path, b"c" * 100)
    assert _kept(tmp_path) == {second.parent.name, third.parent.name}


def test_a_blob_over_the_whole_size_is_still_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blobs, "BLOBS_MAX_BYTES", 50)
    _write(tmp_path, b"small", time.time() - 3600)
    big = _write(tmp_path, b"x" * 100)
    assert _kept(tmp_path) == {big.parent.name} and big.read_bytes() == b"x" * 100


def test_what_is_not_a_blob_folder_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stray file, and a folder gone by the time it is measured (here a dangling link)."""
    monkeypatch.setattr(blobs, "BLOBS_MAX_COUNT", 1)
    root = tmp_path / "tool-runs" / "blobs"
    root.mkdir(parents=True)
    (root / "stray.txt").write_text("stray")
    (root / "gone").symlink_to(tmp_path / "nowhere")
    kept = _write(tmp_path, b"model")
    assert _kept(tmp_path) == {"stray.txt", "gone", kept.parent.name}
