"""A fresh virtual environment holding only the agent's packages, and runs of the pairing line.

The venv has no pip and no source tree of ours: the packages the agent needs are linked in from
the test interpreter, so nothing is downloaded. Commands run in an empty folder with ``HOME`` in
the test's folder and nothing on ``PYTHONPATH``, as on a fresh device.
"""

import os
import signal
import subprocess
import sys
from importlib import metadata
from pathlib import Path

AGENT_PACKAGES = ("websockets", "psutil", "debugpy")


def make_venv(root: Path, packages: tuple[str, ...] = AGENT_PACKAGES) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   timeout=120)
    [site] = (root / "lib").glob("python3*/site-packages")
    for name in packages:
        dist = metadata.distribution(name)
        package = Path(str(dist.locate_file(name)))
        info = Path(str(dist.locate_file(f"{name}-{dist.version}.dist-info")))
        for source in (package, info):
            (site / source.name).symlink_to(source)
    return root


def device_env(venv: Path, home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}


class DeviceShell:
    """A command line run by ``bash -c`` in an empty folder, output kept in a file."""

    def __init__(self, command: str, cwd: Path, env: dict[str, str]) -> None:
        cwd.mkdir(parents=True, exist_ok=True)
        self.log_path = cwd.parent / f"{cwd.name}.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env,
                                     stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._log.close()
