"""The web UI's structure (docs/architecture.md, "Web UI structure"): features sit on a small kernel.

``webui/scripts/ui-structure.cjs`` reads the import graph of ``webui/src`` with madge and fails on
any import cycle between files and on a feature folder importing another feature folder unless the
pair is listed, with why, in ``webui/scripts/ui-structure-exceptions.cjs`` (an entry that no longer
matches an import fails too, so the list only shrinks); a cycle between feature folders fails even
when its pairs are listed.
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
    assert "feature folders in a cycle: 0" in done.stdout
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


def write_features(root: Path, imports: dict[str, str]) -> None:
    """A tree of feature folders: ``imports`` maps 'folder/file' to the 'folder/file' it imports
    (no cycle between files: each file imports a leaf)."""
    for file, target in imports.items():
        for name in (file, target):
            (root / "features" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "features" / f"{target}.ts").write_text("export const leaf = 1;\n")
        (root / "features" / f"{file}.ts").write_text(
            f"import {{ leaf }} from '../{target}';\nexport const used = leaf;\n")


def listed(root: Path, *pairs: str) -> Path:
    """An exceptions file allowing ``pairs``."""
    path = root / "exceptions.cjs"
    entries = ", ".join(f"['{pair}', 'listed by the test']" for pair in pairs)
    path.write_text(f"module.exports = new Map([{entries}]);\n")
    return path


def test_a_cycle_between_folders_fails_even_with_its_pairs_listed(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    write_features(tree, {"alpha/uses": "beta/leaf", "beta/uses": "alpha/leaf"})
    done = run_check(str(tree), str(listed(tmp_path, "alpha -> beta", "beta -> alpha")))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cycles between files: 0" in done.stdout
    assert "allowed alpha -> beta" in done.stdout
    assert "allowed beta -> alpha" in done.stdout
    assert "NOT ALLOWED, a cycle: alpha, beta" in done.stdout


def test_a_listed_one_way_import_passes(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    write_features(tree, {"alpha/uses": "beta/leaf"})
    done = run_check(str(tree), str(listed(tmp_path, "alpha -> beta")))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "feature folders in a cycle: 0" in done.stdout
    assert done.stdout.rstrip().endswith("OK")
