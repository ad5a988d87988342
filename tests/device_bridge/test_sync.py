import hashlib
from pathlib import Path

import pytest

from device_bridge.agent.files import SyncReceiver
from device_bridge.sync import UnsafePath, build_manifest, check_path, confined


@pytest.mark.parametrize(
    "path",
    [
        "../x",
        "/etc/passwd",
        "a/../../b",
        ".git/hooks/pre-commit",
        "sub/.GIT/config",
        "a\\b",
        "",
        "C:/x",
        "a//b",
        "./a",
    ],
)
def test_unsafe_paths_are_refused(path: str) -> None:
    with pytest.raises(UnsafePath):
        check_path(path)


def test_symlinks_out_of_the_root_are_refused(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path)
    with pytest.raises(UnsafePath):
        confined(tmp_path / "root", "link/secret")


def test_manifest_skips_git_and_symlinks(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("x")
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "l.py").symlink_to(tmp_path / "a.py")
    manifest = build_manifest(tmp_path)
    assert [e["path"] for e in manifest] == ["a.py"]
    assert manifest[0]["sha256"] == hashlib.sha256(b"print(1)\n").hexdigest()


def entry(path: str, data: bytes) -> dict:
    return {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def chunk(path: str, offset: int, total: int) -> dict:
    return {"type": "sync.chunk", "sid": "s", "path": path, "offset": offset, "total": total}


def test_receiver_checks_hashes_and_keeps_program_outputs(tmp_path: Path) -> None:
    receiver = SyncReceiver(tmp_path / "files", tmp_path / "ledger.json")
    bad = [entry("../x", b""), {"path": "b", "sha256": "zz", "size": 1}, "junk"]
    need, deleted, refused = receiver.plan([entry("a.txt", b"abc"), *bad])
    assert (need, deleted, refused) == (["a.txt"], [], ["../x", "b", "junk"])
    receiver.chunk(chunk("a.txt", 0, 3), b"abd")
    assert receiver.finish() == ([], ["a.txt"])

    receiver.plan([entry("a.txt", b"abc")])
    receiver.chunk(chunk("a.txt", 0, 3), b"ab")
    receiver.chunk(chunk("a.txt", 2, 3), b"c")
    assert receiver.finish() == (["a.txt"], [])
    (tmp_path / "files" / "output.bin").write_bytes(b"made by the program")

    again = SyncReceiver(tmp_path / "files", tmp_path / "ledger.json")
    assert again.plan([entry("a.txt", b"abc")]) == ([], [], [])
    assert again.plan([]) == ([], ["a.txt"], [])
    assert (tmp_path / "files" / "output.bin").exists()
