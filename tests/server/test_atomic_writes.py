"""One way to replace a file: the helpers of ``device_bridge/atomic.py`` (docs/architecture.md,
"One way for each chore"). No other module moves a file into place by hand, and the helpers
leave either the old file or the new one, never a torn file or a stray temp file."""

import ast
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from device_bridge.atomic import (
    atomic_write,
    is_temp_name,
    publish,
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
)

ROOT = Path(__file__).resolve().parents[2]
HELPER = "device_bridge/atomic.py"
# Renames that are not an atomic write of ours, each with its reason.
ALLOWED = {
    "server/files/service.py": "the rename or move the user asked for in the file tree",
    "server/training/wrapper.py": "a standard-library-only script run inside the job; it reuses "
                                  "blocks reserved at start so the exit record is written (and "
                                  "fsynced) even on a full disk",
    "server/gitflow/looseobjects.py": "Git's loose objects, written as git writes them: fsynced only "
                                      "when the repository's core.fsyncObjectFiles asks (an object's "
                                      "name is its content's hash, so a torn one is found by git "
                                      "fsck, never mistaken for another)",
}


def _moves(tree: ast.AST) -> Iterator[ast.Call]:
    """``os.replace``/``os.rename`` calls and one-argument ``.replace``/``.rename`` calls (a
    ``Path``'s; ``str.replace`` takes two, ``datetime``/``dataclasses.replace`` keywords)."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("replace", "rename"):
            continue
        on_os = isinstance(node.func.value, ast.Name) and node.func.value.id == "os"
        if on_os or (len(node.args) == 1 and not node.keywords):
            yield node


def _sites() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for package in ("server", "device_bridge"):
        for source in sorted((ROOT / package).rglob("*.py")):
            rel = source.relative_to(ROOT).as_posix()
            calls = [f"{call.lineno}: {ast.unparse(call)}" for call in _moves(ast.parse(source.read_text()))]
            if calls:
                found[rel] = calls
    return found


def test_no_module_but_the_helper_moves_a_file_into_place_by_hand() -> None:
    sites = _sites()
    assert HELPER in sites  # the scan does see os.replace
    others = {rel: calls for rel, calls in sites.items() if rel != HELPER and rel not in ALLOWED}
    assert others == {}


def test_every_allowed_rename_is_still_there() -> None:
    sites = _sites()
    assert {rel for rel in ALLOWED if rel not in sites} == set()


def test_the_scan_tells_a_path_move_from_a_string_replace() -> None:
    code = ('os.replace(a, b)\nPath(a).rename(b)\npart.replace(target)\ntext.replace("a", "b")\n'
            'moment.replace(tzinfo=UTC)\ndataclasses.replace(stage, **values)\n')
    assert [ast.unparse(call) for call in _moves(ast.parse(code))] == [
        "os.replace(a, b)", "Path(a).rename(b)", "part.replace(target)"]


def test_writes_content_and_returns_the_size(tmp_path: Path) -> None:
    assert atomic_write(tmp_path / "a.bin", [b"ab", b"cd"]) == 4
    assert (tmp_path / "a.bin").read_bytes() == b"abcd"
    write_bytes_atomic(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    write_text_atomic(tmp_path / "c.txt", "héllo\n")
    assert (tmp_path / "c.txt").read_text(encoding="utf-8") == "héllo\n"
    write_json_atomic(tmp_path / "d.json", {"b": 1, "a": [2]}, sort_keys=True, indent=1)
    assert (tmp_path / "d.json").read_text() == json.dumps({"a": [2], "b": 1}, indent=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.bin", "c.txt", "d.json"]


def test_a_new_file_is_0644_an_old_one_keeps_its_mode_unless_one_is_given(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    write_text_atomic(new, "x")
    assert new.stat().st_mode & 0o7777 == 0o644
    old.write_text("x")
    old.chmod(0o640)
    write_text_atomic(old, "y")
    assert (old.stat().st_mode & 0o7777, old.read_text()) == (0o640, "y")
    write_json_atomic(old, {}, mode=0o600)
    assert (old.stat().st_mode & 0o7777, old.read_text()) == (0o600, "{}")


def _dies_midway() -> Iterator[bytes]:
    yield b"new content, half of it"
    raise RuntimeError("the writer died")


def test_a_failure_midway_keeps_the_old_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="the writer died"):
        atomic_write(target, _dies_midway())
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_failure_before_the_first_write_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        atomic_write(tmp_path / "never", _dies_midway())
    assert list(tmp_path.iterdir()) == []


def test_over_the_limit_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "up.bin"
    target.write_bytes(b"old")
    with pytest.raises(OverflowError):
        atomic_write(target, [b"12", b"345"], limit=4)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["up.bin"]


def test_the_temp_file_is_hidden_and_named_for_the_sweep(tmp_path: Path) -> None:
    seen: list[str] = []

    def chunks() -> Iterator[bytes]:
        seen.extend(p.name for p in tmp_path.iterdir())
        yield b"x"

    atomic_write(tmp_path / ("n" * 255), chunks())
    assert len(seen) == 1 and is_temp_name(seen[0]) and len(os.fsencode(seen[0])) <= 255


def test_publish_puts_a_streamed_file_in_place_of_the_old_one(tmp_path: Path) -> None:
    part, target = tmp_path / "model.mnn.part", tmp_path / "model.mnn"
    target.write_bytes(b"old")
    part.write_bytes(b"downloaded")
    publish(part, target)
    assert target.read_bytes() == b"downloaded"
    assert [p.name for p in tmp_path.iterdir()] == ["model.mnn"]


def test_publish_moves_a_staged_folder_into_place(tmp_path: Path) -> None:
    staging, dest = tmp_path / ".pkg.partial", tmp_path / "pkg"
    (staging / "sub").mkdir(parents=True)
    (staging / "sub" / "f.txt").write_text("inside")
    publish(staging, dest)
    assert (dest / "sub" / "f.txt").read_text() == "inside"
    assert not staging.exists()


def test_publish_of_a_missing_file_raises_and_keeps_the_target(tmp_path: Path) -> None:
    target = tmp_path / "model.mnn"
    target.write_bytes(b"old")
    with pytest.raises(FileNotFoundError):
        publish(tmp_path / "model.mnn.part", target)
    assert target.read_bytes() == b"old"
