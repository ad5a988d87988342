"""The built-in source: packages made by ``server/market/builtin/build.py`` at first use, and
the real pretrained algorithms ``make market`` builds (``server/market/builtin/real/served.py``).

They are built once into ``<data dir>/market/builtin/<key>/``, where the key hashes the build
scripts and the versions of the libraries that train and convert, so a changed script or library
builds afresh and an unchanged one never does. The build is a subprocess (training and the native
converter stay out of the server); its progress lines go to the log.
"""

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from importlib.metadata import version as dist_version
from pathlib import Path

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import NotFound, Unavailable
from server.core.fsutil import publish
from server.market.builtin.real import served as real
from server.market.package import (
    MANIFEST_NAME,
    PackageManifest,
    copy_package,
    read_manifest,
    verify_folder,
)
from server.modeltools.progress import parse as parse_progress

NAME = "builtin"
SCRIPTS = Path(__file__).resolve().parent / "builtin"
BUILD_TIMEOUT_S = 600
# One BLAS thread: the models are tiny, and more threads only fight on a busy machine.
BUILD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
_build_lock = threading.Lock()
log = logging.getLogger(__name__)


def build_key() -> str:
    digest = hashlib.sha256()
    for path in sorted([*SCRIPTS.glob("*.py"), SCRIPTS.parent / "package.py"]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for dist in ("MNN", "scikit-learn", "numpy", "onnx"):
        digest.update(f"{dist}={dist_version(dist)}".encode())
    return digest.hexdigest()[:16]


def builtin_root(settings: Settings) -> Path:
    return settings.data_dir / "market" / "builtin"


def _run_build(out: Path) -> None:
    env = {**os.environ, **BUILD_ENV, "PYTHONWARNINGS": "ignore"}
    cmd = [sys.executable, "-m", "server.market.builtin.build", str(out)]
    try:
        done = subprocess.run(cmd, cwd=out.parent, env=env, capture_output=True, text=True,
                              timeout=BUILD_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise Unavailable("building the built-in algorithms took too long",
                          code=ErrorCode.BUILTIN_BUILD_FAILED) from None
    for line in done.stdout.splitlines():
        progress = parse_progress(line)
        if progress is not None:
            log.info("built-in algorithms: %s (%.0f%%)", progress.get("stage"),
                     100 * float(progress.get("fraction", 0)))
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1][:500]
        raise Unavailable(f"building the built-in algorithms failed: {tail}",
                          code=ErrorCode.BUILTIN_BUILD_FAILED)


def ensure_built(settings: Settings) -> Path:
    """The folder holding one sub-folder per built-in package, built first if need be."""
    final = builtin_root(settings) / build_key()
    with _build_lock:
        if final.is_dir():
            return final
        final.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".build-", dir=final.parent))
        try:
            _run_build(scratch / "packages")
            try:
                publish(scratch / "packages", final)
            except OSError:
                if not final.is_dir():  # else another server process on this data dir won
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return final


class BuiltinSource:
    """The built-in packages, read from their built folder."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def entries(self) -> list[PackageManifest]:
        root = ensure_built(self.settings)
        return [read_manifest(folder) for folder in sorted(root.iterdir())
                if (folder / MANIFEST_NAME).is_file()] + real.entries()

    def folder(self, id: str, version: str) -> Path:
        if real.is_real(id):
            return real.folder(id, version)
        folder = ensure_built(self.settings) / id
        if not (folder / MANIFEST_NAME).is_file() or read_manifest(folder).version != version:
            raise NotFound(f"no built-in algorithm {id} {version}", code=ErrorCode.PACKAGE_NOT_FOUND)
        return folder

    def readme(self, id: str, version: str) -> str:
        if real.is_real(id) and not real.is_built(id):
            return f"Not built yet: {real.HOW_TO_BUILD}.\n"
        path = self.folder(id, version) / "README.md"
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    def download(self, id: str, version: str, dest: Path) -> Path:
        """Copy the package into ``dest`` after checking every file against its manifest."""
        folder = self.folder(id, version)
        manifest = read_manifest(folder)
        verify_folder(folder, manifest)
        copy_package(folder, manifest, dest)
        return dest
