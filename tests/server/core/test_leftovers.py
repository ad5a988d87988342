"""The start-up sweep: every kind of temporary file or folder a killed server leaves is gone after
the next start; files that only look alike, and whatever is newer than the start, stay."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from server.core import leftovers
from server.core.config import Settings
from tests.conftest import make_client
from tests.waiting import wait_until


def ended_pid() -> int:
    """The pid of a process that has ended."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def plant(path: Path, folder: bool = False) -> Path:
    if folder:
        (path / "package").mkdir(parents=True)
        (path / "package" / "algorithm.toml").write_text("id = 'x'\n")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("partial")
    return path


def plant_leftovers(data: Path, project: Path, dead: int) -> list[Path]:
    """One of each kind, named and placed as the server makes it."""
    return [
        plant(data / "market" / "staging" / "tmpk3j2h1g0", folder=True),  # a market install's download
        plant(data / "market" / "builtin" / ".build-a1b2c3d4", folder=True),
        plant(data / "market" / "blobs" / ".blob-a1b2c3d4"),
        plant(data / "checks" / "p1" / f".{'ab' * 20}.json.a1b2c3d4.tmp"),
        plant(data / "tool-runs" / "blobs" / "f00d" / ".model@f00d123.onnx.a1b2c3d4.tmp"),
        plant(data / "tool-runs" / "r1" / ".inspect-a1b2c3d4", folder=True),
        plant(data / "tool-runs" / ".spare-0123456789abcdef", folder=True),  # a spare worker's
        plant(project / "src" / ".train.py.a1b2c3d4.tmp"),  # an atomic save
        plant(project / f".model.mnn.{dead}.part"),  # a model tool's output
        plant(project / f".model.mnn.{dead}.part.json"),
        plant(project / "market" / ".mnist.k3j2h1g0.partial", folder=True),  # a package copied in
        plant(Path(tempfile.gettempdir()) / f"mnnwb-{dead}-clone-k3j2h1g0", folder=True),
    ]


def plant_lookalikes(data: Path, project: Path) -> list[Path]:
    """Files that are not leftovers: a user's own, a running process's, a job's."""
    return [
        plant(project / "notes.part"),
        plant(project / "download.tmp"),
        plant(project / ".cache.tmp"),
        plant(project / f".model.mnn.{os.getpid()}.part"),  # this process still writes it
        plant(project / "market" / "mnist" / "algorithm.toml"),
        plant(data / "jobs" / "j1" / "exit.json.tmp"),  # space a running job reserved
        plant(data / "market-cache" / "hub" / "files" / "x@1" / "model.onnx.part"),  # resumable
    ]


def test_every_kind_of_leftover_goes_at_start_and_nothing_else(settings: Settings):
    with make_client(settings) as client:
        made = client.post("/api/projects", json={"name": "demo", "template": "empty"})
        assert made.status_code == 201, made.text
    project = Path(made.json()["path"])
    planted = plant_leftovers(settings.data_dir, project, ended_pid())
    kept = plant_lookalikes(settings.data_dir, project)
    try:
        with make_client(settings):
            wait_until(lambda: not [path for path in planted if path.exists()],
                       what=f"the sweep of {[str(p) for p in planted if p.exists()]}")
        assert [path for path in kept if not path.exists()] == []
        assert (project / "market").is_dir() and (settings.data_dir / "market" / "staging").is_dir()
    finally:
        leftovers.sweep(settings.data_dir, [], time.time() + 1)  # the temp dir's, if the test failed


def test_only_what_was_last_changed_before_the_start_goes(tmp_path: Path):
    data, project, temp = tmp_path / "data", tmp_path / "project", tmp_path / "tmp"
    staged = plant(data / "market" / "staging" / "tmpk3j2h1g0", folder=True)
    saved = plant(project / ".a.txt.a1b2c3d4.tmp")
    scratch = plant(temp / f"mnnwb-{ended_pid()}-git-k3j2h1g0", folder=True)
    started_earlier = time.time() - 3600
    assert leftovers.sweep(data, [project], started_earlier, temp) == 0
    assert staged.exists() and saved.exists() and scratch.exists()
    assert leftovers.sweep(data, [project], time.time() + 1, temp) == 3
    assert not staged.exists() and not saved.exists() and not scratch.exists()


def test_a_temp_folder_is_named_for_its_process_and_kept_while_that_runs(tmp_path: Path):
    with tempfile.TemporaryDirectory(prefix=leftovers.scratch_prefix("clone"), dir=tmp_path) as folder:
        assert Path(folder).name.startswith(f"mnnwb-{os.getpid()}-clone-")
        assert leftovers.sweep(tmp_path / "data", [], time.time() + 1, tmp_path) == 0
        assert Path(folder).is_dir()
