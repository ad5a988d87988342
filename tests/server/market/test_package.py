"""algorithm.toml format 1: parsing, writing back, and checking a package folder's files."""

from pathlib import Path

import pytest

from server.core.errors import Invalid
from server.market.package import (
    FileEntry,
    Metrics,
    PackageManifest,
    TamperedFile,
    dump_manifest,
    file_entry,
    parse_manifest,
    verify_folder,
)
from server.market.safety import UnsafeEntry

GOOD = """
format = 1
id = "digits"
version = "1.0.0"
name = "Handwritten digits"
task = "image-classification"
license = "BSD-3-Clause"
authors = ["MNN Workbench"]

[[inputs]]
name = "input"
shape = [1, 1, 8, 8]
layout = "NCHW"
mean = [0.0]
std = [16.0]

[[outputs]]
name = "probabilities"
shape = [1, 10]
labels = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]

[metrics]
accuracy = 0.96
eval_set = "sklearn digits, 20%% held out"
size_bytes = 10

[[metrics.latency]]
device = "x86"
threads = 1
median_ms = 0.04
runs = 200

[demo]
entry = "demo.py"

[[files]]
path = "model.mnn"
sha256 = "%s"
size = 10
role = "model"
"""


def test_a_manifest_parses_and_writes_back_equal():
    manifest = parse_manifest(GOOD % ("a" * 64))
    assert manifest.outputs[0].labels and manifest.outputs[0].labels[3] == "3"
    assert manifest.metrics.latency[0].median_ms == 0.04
    assert parse_manifest(dump_manifest(manifest)) == manifest


@pytest.mark.parametrize("change, where", [
    (('id = "digits"', 'id = "Digits!"'), "id"),
    (('path = "model.mnn"', 'path = "../model.mnn"'), "files.0.path"),
    (('path = "model.mnn"', 'path = "/etc/passwd"'), "files.0.path"),
    (("format = 1", "format = 2"), "format"),
    (('version = "1.0.0"', 'version = "1 0"'), "version"),
])
def test_bad_manifests_are_refused_naming_the_field(change: tuple[str, str], where: str):
    with pytest.raises(Invalid) as caught:
        parse_manifest((GOOD % ("a" * 64)).replace(*change))
    assert caught.value.code == "bad_manifest" and where in caught.value.detail


def test_invalid_toml_is_refused():
    with pytest.raises(Invalid, match="not valid TOML"):
        parse_manifest("id = ")


def _package(folder: Path) -> PackageManifest:
    (folder / "sub").mkdir(parents=True)
    (folder / "model.mnn").write_bytes(b"0123456789")
    (folder / "sub" / "demo.py").write_text("print(1)\n")
    return PackageManifest(id="p", version="1", name="P", metrics=Metrics(), files=[
        file_entry(folder, "model.mnn", "model"), file_entry(folder, "sub/demo.py", "demo")])


def test_verify_folder_names_the_changed_missing_or_linked_file(tmp_path: Path):
    manifest = _package(tmp_path)
    verify_folder(tmp_path, manifest)
    (tmp_path / "model.mnn").write_bytes(b"0123456780")  # same size, other bytes
    with pytest.raises(TamperedFile, match="model.mnn does not match"):
        verify_folder(tmp_path, manifest)
    (tmp_path / "model.mnn").unlink()
    with pytest.raises(TamperedFile, match="model.mnn is missing"):
        verify_folder(tmp_path, manifest)
    outside = tmp_path.parent / "outside.mnn"
    outside.write_bytes(b"0123456789")
    (tmp_path / "model.mnn").symlink_to(outside)
    with pytest.raises(UnsafeEntry, match="model.mnn is a symbolic link"):
        verify_folder(tmp_path, manifest)


def test_file_entries_are_unique():
    entry = FileEntry(path="a.mnn", sha256="b" * 64, size=1, role="model")
    with pytest.raises(ValueError, match="listed twice"):
        PackageManifest(id="p", version="1", name="P", files=[entry, entry])
