"""The layers of ``server`` and ``device_bridge`` hold (docs/architecture.md, "Layers").

``lint-imports`` checks the contracts of ``[tool.importlinter]`` in pyproject.toml: the layers of
the server, no cycle between its packages, and the device agent never importing the server.
"""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))


def test_the_import_contracts_are_kept() -> None:
    done = subprocess.run([LINT_IMPORTS, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_every_ignored_import_is_listed_as_remaining_work() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    ignored = {imp for contract in config["contracts"] for imp in contract.get("ignore_imports", [])}
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert {imp for imp in ignored if f"`{imp}`" not in doc} == set()
