"""The wheel carries the built web UI: ``webui/dist`` is copied to ``server/web/dist``.

Everything else about the package is in ``pyproject.toml``. ``make wheel`` builds the UI first;
a wheel built without it says so and serves the "not built yet" page (docs/quickstart.md,
"Run without the repository"). Editable installs keep serving ``webui/dist`` in place.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

UI_DIST = Path(__file__).resolve().parent / "webui" / "dist"
MANIFEST = Path(".vite") / "manifest.json"


class BuildPyWithUI(build_py):
    """``build_py``, then the built UI into the package being built (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        if not (UI_DIST / MANIFEST).is_file():
            print("warning: webui/dist is not built; the wheel carries no web UI (run make ui)")
            return
        target = Path(self.build_lib) / "server" / "web" / "dist"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(UI_DIST, target)


setup(cmdclass={"build_py": BuildPyWithUI})
