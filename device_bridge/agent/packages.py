"""The agent's packages: which are missing, and installing them into a folder of the agent home.

Standard library only: this runs before any of the packages it installs. Packages go into
``<agent home>/lib/<python tag>`` with ``pip install --target``, which needs no root, leaves the
system's Python alone (and so works where PEP 668 marks it externally managed) and is put on
``sys.path`` and ``PYTHONPATH`` by the agent itself, so the programs it starts see them too.
"""

import importlib
import os
import subprocess
import sys
from collections.abc import Callable
from importlib import util
from pathlib import Path

Say = Callable[[str], None]

# import name → what pip installs; the agent cannot connect without these
REQUIRED = {"websockets": "websockets>=13.0", "psutil": "psutil>=5.9", "debugpy": "debugpy>=1.8"}
# on-device benchmarks and tensor watchpoints; no wheel exists for every device, so on request
MNN_PACKAGES = {"numpy": "numpy>=1.24", "MNN": "MNN"}


def default_home() -> Path:
    return Path(os.environ.get("MNNWB_AGENT_HOME") or Path.home() / ".mnnwb-agent")


def agent_pyz() -> Path | None:
    """The zipapp this agent runs from, or None when it runs from a source tree."""
    container = Path(__file__).resolve().parents[2]
    return container if container.is_file() else None


def lib_dir(home: Path) -> Path:
    """One folder per Python version: compiled packages do not survive a Python upgrade."""
    return home / "lib" / f"cp{sys.version_info.major}{sys.version_info.minor}"


def use_lib(lib: Path, pyz: Path | None) -> None:
    """Put the agent (when run as a zipapp) and its package folder on this and every child's path."""
    paths = [str(p) for p in (pyz, lib) if p is not None]
    for path in reversed(paths):
        if path not in sys.path:
            sys.path.insert(1, path)
    inherited = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in paths]
    os.environ["PYTHONPATH"] = os.pathsep.join([*paths, *inherited])


def missing(packages: dict[str, str]) -> list[str]:
    return [name for name in packages if util.find_spec(name) is None]


def pip_command(lib: Path, requirements: list[str]) -> list[str]:
    return [sys.executable, "-m", "pip", "install", "--disable-pip-version-check",
            "--target", str(lib), *requirements]


def install(lib: Path, names: list[str], packages: dict[str, str], say: Say) -> bool:
    """pip-install ``names`` into ``lib``; False (after saying why) when that is not possible."""
    if util.find_spec("pip") is None:
        say("pip is missing for this Python: install it (Debian/Ubuntu: sudo apt install "
            "python3-pip; Termux: pkg install python-pip), then run the command again")
        return False
    requirements = [packages[name] for name in names]
    say(f"installing {', '.join(requirements)} into {lib} (pip install --target)")
    lib.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(pip_command(lib, requirements), check=False)
    if done.returncode != 0:
        say(f"pip failed (exit code {done.returncode}); see its output above")
        return False
    importlib.invalidate_caches()
    return True

