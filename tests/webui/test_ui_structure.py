"""The web UI's structure (docs/architecture.md, "Web UI structure"): features sit on a small kernel.

``webui/scripts/ui-structure.cjs`` reads the import graph of ``webui/src`` with madge and fails on
any import cycle between files and on a feature folder importing another feature folder unless the
pair is listed, with why, in ``webui/scripts/ui-structure-exceptions.cjs`` (an entry that no longer
matches an import fails too, so the list only shrinks).
"""

import subprocess
from pathlib import Path

from server.core.config import REPO_ROOT

WEBUI = REPO_ROOT / "webui"


def run_check(*args: str) -> subprocess.CompletedProcess[str]:
    """The check as `npm run structure` runs it, from webui/; its report is printed."""
    done = subprocess.run(["npm", "run", "--silent", "structure", "--", *args], cwd=WEBUI,
                          capture_output=True, text=True, timeout=300)
    print(done.stdout, done.stderr)
    return done


def test_no_file_cycle_and_no_unlisted_import_between_features() -> None:
    done = run_check()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cycles between files: 0" in done.stdout
    assert done.stdout.rstrip().endswith("OK")


def test_a_cycle_and_an_unlisted_import_between_features_fail(tmp_path: Path) -> None:
    for name, other in (("alpha", "beta"), ("beta", "alpha")):
        folder = tmp_path / "features" / name
        folder.mkdir(parents=True)
        (folder / "index.ts").write_text(
            f"import {{ {other} }} from '../{other}/index';\nexport const {name} = () => {other};\n")
    done = run_check(str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cycles between files: 1" in done.stdout
    assert "NOT ALLOWED alpha -> beta" in done.stdout
    assert "NOT ALLOWED beta -> alpha" in done.stdout
    assert "feature folders in a cycle: 2" in done.stdout
