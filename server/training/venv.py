"""Create a project's own virtual environment from its ``requirements.txt``, with progress.

The venv is made without pip (fast) and installed into by the server's pip (``pip --python``).
With ``inherit_server_packages`` a ``.pth`` file puts the server's site-packages after the
venv's own, so large packages already installed for the server (torch, MNN) are reused rather
than downloaded again, while whatever the project pins still wins. (``--system-site-packages``
would not do: when the server itself runs in a venv it exposes the base interpreter's
packages, not the server's.)
"""

import site
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.training.events import VenvDone, VenvProgress

VENV_DIR = ".venv"
PTH_NAME = "_mnnwb_server_packages.pth"
Progress = Callable[[VenvProgress | VenvDone], object]


def venv_python(project_path: Path) -> Path:
    return project_path / VENV_DIR / "bin" / "python"


def check_can_create(project_path: Path) -> None:
    target = project_path / VENV_DIR
    if target.exists() and not venv_python(project_path).exists():
        raise Invalid(f"{VENV_DIR} exists and is not a virtual environment", code=ErrorCode.BAD_VENV)


def _run(argv: list[str], cwd: Path, progress: Progress, step: str) -> int:
    process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
    with process:
        for line in process.stdout or ():
            progress(VenvProgress(step=step, line=line.rstrip("\n")))
    return process.returncode


def _link_server_packages(python: Path) -> None:
    query = "import sysconfig; print(sysconfig.get_path('purelib'))"
    found = subprocess.run([str(python), "-c", query], capture_output=True, text=True, check=True)
    Path(found.stdout.strip(), PTH_NAME).write_text("\n".join(site.getsitepackages()) + "\n")


def create_venv(project_path: Path, progress: Progress, *, inherit_server_packages: bool) -> bool:
    """Create or update ``<project>/.venv``; reports ``venv.progress`` lines and ``venv.done``."""
    python = venv_python(project_path)
    progress(VenvProgress(step="create", line=f"creating {VENV_DIR}"))
    code = _run([sys.executable, "-m", "venv", "--without-pip", VENV_DIR], project_path, progress,
                "create")
    if code == 0 and inherit_server_packages:
        _link_server_packages(python)
    requirements = project_path / "requirements.txt"
    if code == 0 and requirements.exists():
        pip = [sys.executable, "-m", "pip", "--python", str(python), "install",
               "--disable-pip-version-check", "--progress-bar", "off", "-r", str(requirements)]
        code = _run(pip, project_path, progress, "install")
    ok = code == 0
    progress(VenvDone(ok=ok, interpreter=str(python) if ok else None,
                      reason=None if ok else f"step failed with exit code {code}"))
    return ok
