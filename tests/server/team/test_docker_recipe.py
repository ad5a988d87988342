"""The Docker image recipe, run without Docker: the Dockerfile's own install and start commands
in a fresh virtualenv, then its health check against the running server.

The fresh virtualenv reuses this environment's installed dependencies (a ``.pth`` line) so the
test needs no network; the project itself is installed from a copy of exactly what the
Dockerfile copies.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from server.core.config import REPO_ROOT, Settings
from server.user_cli import database
from server.users.service import add_user
from tests.conftest import _free_port
from tests.server.team.conftest import PASSWORD
from tests.waiting import wait_until

DOCKERFILE = REPO_ROOT / "docker" / "Dockerfile"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the final stage, with continuation lines joined."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    final = max(i for i, line in enumerate(lines) if line.startswith("FROM "))
    return [(line.split(None, 1)[0], line.split(None, 1)[1]) for line in lines[final:]]


def _image_env(steps: list[tuple[str, str]], data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNNWB_")}
    env.update(dict(args.split("=", 1) for op, args in steps if op == "ENV"))
    env.update(MNNWB_DATA_DIR=str(data), MNNWB_WEBUI_DIST=str(data.parent / "dist"))
    return env


def _install(steps: list[tuple[str, str]], root: Path) -> Path:
    """Copy what the image copies, make a virtualenv, run the image's ``pip install``."""
    app = root / "app"
    app.mkdir()
    for op, args in steps:
        if op == "COPY" and not args.startswith("--from"):
            # Every COPY here keeps the source's name under the WORKDIR.
            for source in args.split()[:-1]:
                src = REPO_ROOT / source
                if src.is_dir():
                    shutil.copytree(src, app / source, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    shutil.copy2(src, app / source)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = Path(
        subprocess.check_output(
            [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    (purelib / "reuse-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip_runs = [args for op, args in steps if op == "RUN" and args.startswith("pip install")]
    assert pip_runs == ["pip install ."]
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "--no-compile", "--quiet"]
    argv = [str(venv / "bin" / "python"), "-m", *shlex.split(pip_runs[0]), *offline]
    subprocess.run(argv, cwd=app, check=True, timeout=300)
    return venv


def _wait_healthy(healthcheck: list[str], env: dict[str, str], server: subprocess.Popen) -> None:
    def healthy() -> bool:
        assert server.poll() is None, server.communicate()[1]
        return subprocess.run(healthcheck, env=env, capture_output=True, timeout=30).returncode == 0

    wait_until(healthy, timeout=60, what="the health check to pass", interval=0.2)


def test_the_image_recipe_installs_and_serves_a_healthy_team_server(tmp_path: Path):
    steps = _instructions()
    assert steps[0] == ("FROM", "python:3.11-slim")
    assert ("USER", "mnnwb") in steps
    venv = _install(steps, tmp_path)
    env = _image_env(steps, tmp_path / "data")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    assert env["MNNWB_MODE"] == "team"
    port = str(_free_port())
    cmd = [port if arg == "8765" else arg for arg in json.loads(dict(steps)["CMD"])]
    # The first admin, as `mnnwb user add` makes it (in-process: a process start is slow here).
    with database(Settings(data_dir=tmp_path / "data")) as session:
        add_user(session, "admin", PASSWORD, "admin")
    health = json.loads(dict(steps)["HEALTHCHECK"].split("CMD", 1)[1])
    health = [arg.replace(":8765/", f":{port}/") for arg in health]
    with subprocess.Popen(
        cmd, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as server:
        try:
            _wait_healthy(health, env, server)
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert str(venv) in (shutil.which("mnnwb", path=env["PATH"]) or "")
