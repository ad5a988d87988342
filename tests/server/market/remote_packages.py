"""Small algorithm packages written to folders, as a catalog publisher would lay them out."""

import json
from pathlib import Path

from server.market.package import MANIFEST_NAME, PackageManifest, dump_manifest, file_entry

FILES = {
    "model.mnn": ("model", bytes(range(256)) * 40),
    "demo.py": ("demo", b"print('hello from the demo')\n"),
    "README.md": ("readme", b"# Tiny\n\nA package for the catalog tests.\n"),
}


def write_package(folder: Path, package_id: str, version: str) -> PackageManifest:
    """Write the files and an ``algorithm.toml`` listing them with their sha256."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (_, data) in FILES.items():
        (folder / name).write_bytes(data)
    manifest = PackageManifest(
        id=package_id, version=version, name=f"Tiny {package_id}", task="image-classification",
        summary="a tiny package", license="MIT", authors=["tests"],
        files=[file_entry(folder, name, role) for name, (role, _) in FILES.items()])  # type: ignore[arg-type]
    (folder / MANIFEST_NAME).write_text(dump_manifest(manifest), encoding="utf-8")
    return manifest


def publish_index(root: Path, packages: dict[str, list[str]], fmt: int = 1) -> None:
    index = {"format": fmt, "packages": []}
    for package_id, versions in packages.items():
        for version in versions:
            write_package(root / package_id / version, package_id, version)
        index["packages"].append({"id": package_id, "versions": [
            {"version": v, "path": f"{package_id}/{v}/"} for v in versions]})
    (root / "index.json").write_text(json.dumps(index))
