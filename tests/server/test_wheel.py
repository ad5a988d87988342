"""The wheel: built from the checkout's files with the built web UI inside, checked for what it
holds and its size, installed into a fresh venv and served from there by ``mnnwb serve`` with no
repository around it (docs/quickstart.md, "Run without the repository").

The fresh venv installs the wheel itself (``--no-deps``); its dependencies are read from the
development venv through a ``.pth`` line placed after the venv's own site-packages, so nothing is
downloaded and the ``server`` package that runs is the wheel's (asserted).
"""

import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.core.config import REPO_ROOT
from tests.waiting import wait_until

UI = REPO_ROOT / "webui" / "dist"
# The UI is ~4 MB compressed (its .gz twins included); the server's code and templates < 1 MB.
LIMIT_BYTES = 8 * 1000 * 1000
SOURCES = ("server", "device_bridge", "pyproject.toml", "setup.py", "README.md")
FORBIDDEN = ("tests/", "node_modules/", ".cache/", "__pycache__/", "webui/src/", ".venv/")
URL = re.compile(r"(http://127\.0\.0\.1:\d+)/\?token=(\S+)")

# One process of ``make test`` runs all of them: the wheel and its venv (module fixtures) are
# then built once, not once in each process.
pytestmark = pytest.mark.xdist_group("wheel")


def _copy_checkout(dest: Path) -> None:
    """The files a wheel is built from, and the built UI, as a clone after ``make ui`` has them."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=ignore)
        else:
            shutil.copy2(source, dest / name)
    shutil.copytree(UI, dest / "webui" / "dist")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (UI / ".vite" / "manifest.json").is_file():
        pytest.fail("webui/dist is not built: make setup builds it")
    src = tmp_path_factory.mktemp("src")
    _copy_checkout(src)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(src)], check=True, capture_output=True, timeout=120)
    (built,) = out.glob("mnn_workbench-*.whl")
    return built


def test_the_wheel_carries_the_built_ui_and_nothing_of_the_workspace(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    ui_files = sorted(p.relative_to(UI).as_posix() for p in UI.rglob("*") if p.is_file())
    packaged = sorted(n.removeprefix("server/web/dist/") for n in names
                      if n.startswith("server/web/dist/"))
    assert packaged == ui_files
    assert "server/web/dist/.vite/manifest.json" in names
    assert any(re.fullmatch(r"server/web/dist/assets/main-[\w-]+\.js", n) for n in names)
    assert "server/web/shell.html" in names and "server/cli.py" in names
    assert [n for n in names if any(part in n for part in FORBIDDEN)] == []


def test_the_wheel_stays_under_its_size_limit(wheel: Path) -> None:
    assert wheel.stat().st_size < LIMIT_BYTES, f"{wheel.stat().st_size:,} bytes"


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True, timeout=120)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "dev-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return root


def _env(venv: Path, home: Path) -> dict[str, str]:
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home),
            "MNNWB_DATA_DIR": str(home / "data")}


@pytest.fixture
def served(venv: Path, tmp_path: Path) -> Iterator[tuple[str, str]]:
    proc = subprocess.Popen([str(venv / "bin" / "mnnwb"), "serve", "--port", "0"], cwd=tmp_path,
                            env=_env(venv, tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        found = wait_until(lambda: next((m for m in map(URL.search, list(lines)) if m), None)
                           or proc.poll() is not None, timeout=90, what="the printed URL")
        assert isinstance(found, re.Match), "".join(lines)
        yield found.group(1), found.group(2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        reader.join(timeout=30)
        proc.stdout.close()


def test_the_installed_server_is_the_wheel(venv: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import server; print(server.__file__)"],
                           cwd=tmp_path, env=_env(venv, tmp_path), check=True, capture_output=True,
                           text=True).stdout.strip()
    assert Path(where).is_relative_to(venv)


def test_mnnwb_serve_from_the_wheel_serves_the_ui(served: tuple[str, str], wheel: Path) -> None:
    base, token = served
    with httpx.Client(base_url=base, follow_redirects=True, timeout=30) as client:
        page = client.get(f"/?token={token}")
        assert page.status_code == 200
        assert "not built yet" not in page.text
        entry = re.search(r'<script type="module" src="/static/(assets/main-[\w-]+\.js)"', page.text)
        assert entry, page.text[:2000]
        script = client.get(f"/static/{entry.group(1)}", headers={"Accept-Encoding": "identity"})
    assert script.status_code == 200
    assert script.content == zipfile.ZipFile(wheel).read(f"server/web/dist/{entry.group(1)}")
