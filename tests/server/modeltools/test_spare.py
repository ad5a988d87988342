"""A spare worker started ahead of need inside the sandbox, on real bubblewrap processes: it runs
one job of its own project, sees nothing else, and leaves no folder behind."""

import shutil
import threading
from functools import partial
from pathlib import Path

import pytest

from server.modeltools.pool import Standby
from server.modeltools.runner import Limits, Outcome, SpareRecipe, WorkerSpec, run_worker
from server.sandbox import Sandbox
from tests.server.modeltools.conftest import Models, RecordingLauncher
from tests.waiting import process_running, wait_until


@pytest.fixture
def layout(tmp_path: Path, zoo: Models) -> dict[str, Path]:
    """A data directory as the server keeps it: two projects with a model each, the runs."""
    data = tmp_path / "data"
    paths = {"data": data, "runs": data / "tool-runs"}
    for name in ("a", "b"):
        paths[name] = data / "projects" / name
        paths[name].mkdir(parents=True)
        shutil.copy(zoo.conv_mnn, paths[name] / "conv.mnn")
    paths["runs"].mkdir()
    return paths


def _recipe(sandbox: Sandbox, root: Path) -> SpareRecipe:
    def wrap(folder: Path):
        return partial(sandbox.wrap, policy=sandbox.for_tool(folder, writable=(folder, root)))

    return SpareRecipe(str(root), wrap)


def _spec(layout: dict[str, Path], name: str, model: Path, recipe: SpareRecipe, sandbox: Sandbox):
    run_dir = layout["runs"] / name
    run_dir.mkdir()
    return WorkerSpec("inspect", {"model": str(model)}, run_dir, Limits(timeout_s=120),
                      wrap=recipe.wrap(run_dir), spare=recipe)


def _spares(runs: Path) -> list[str]:
    return sorted(p.name for p in runs.iterdir() if p.name.startswith(".spare-"))


def test_a_sandboxed_spare_runs_one_job_of_its_project_and_sees_nothing_else(
    layout: dict[str, Path],
) -> None:
    sandbox = Sandbox(True, hidden=(layout["data"],))
    a, b = _recipe(sandbox, layout["a"]), _recipe(sandbox, layout["b"])
    standby = Standby(Limits(timeout_s=120))
    launcher = RecordingLauncher(standby)
    try:
        standby.refill(a, layout["runs"])
        assert standby.wait_ready(60) is True
        assert len(_spares(layout["runs"])) == 1
        # a run of another project never gets it
        assert standby.take(_spec(layout, "other", layout["b"] / "conv.mnn", b, sandbox)) is None

        spec = _spec(layout, "mine", layout["a"] / "conv.mnn", a, sandbox)
        outcome = run_worker(spec, launcher=launcher)
        assert outcome.status == "succeeded", outcome.error
        assert outcome.result is not None and outcome.result["op_count"] > 0
        assert "MNNWB_PROGRESS" in spec.log_path.read_text()
        assert (spec.run_dir / "result.json").is_file()
        assert len(launcher.pids) == 1 and _spares(layout["runs"]) == []

        # the spare's sandbox is its project's: another project's model is not there
        standby.refill(a, layout["runs"])
        assert standby.wait_ready(60) is True
        foreign = _spec(layout, "foreign", layout["b"] / "conv.mnn", a, sandbox)
        outcome = run_worker(foreign, launcher=launcher)
        assert len(launcher.pids) == 2 and launcher.pids[0] != launcher.pids[1]
        assert outcome.status == "failed"
        assert "conv.mnn" in (outcome.error or "")

        # a spare for another project replaces the idle one, which goes with its folder
        standby.refill(a, layout["runs"])
        assert standby.wait_ready(60) is True
        first = standby._proc
        assert first is not None
        standby.refill(b, layout["runs"])
        wait_until(lambda: not process_running(first.pid), timeout=30)
        assert len(_spares(layout["runs"])) == 1
    finally:
        standby.close()
    assert _spares(layout["runs"]) == []


def _gated(recipe: SpareRecipe, gate: Path) -> SpareRecipe:
    """``recipe`` whose sandbox is only set up once ``gate`` exists: a spare still on its way up,
    as on a loaded machine where a run arrives right after the spare was started."""
    def wrap(folder: Path):
        inner = recipe.wrap(folder)
        assert inner is not None
        wait = 'while [ ! -e "$0" ]; do sleep 0.01; done; exec "$@"'
        return lambda argv: ["sh", "-c", wait, str(gate), *inner(argv)]

    return SpareRecipe(recipe.key, wrap)


def test_a_run_does_not_take_a_spare_whose_sandbox_is_not_up_yet(layout: dict[str, Path]) -> None:
    sandbox = Sandbox(True, hidden=(layout["data"],))
    gate = layout["data"] / "gate"
    plain = _recipe(sandbox, layout["a"])
    a = _gated(plain, gate)
    standby = Standby(Limits(timeout_s=120))
    launcher = RecordingLauncher(standby)
    try:
        standby.refill(a, layout["runs"])
        spare = standby._proc
        assert spare is not None
        # the run arrives before the spare's sandbox exists: it runs in a worker of its own
        first = _spec(layout, "first", layout["a"] / "conv.mnn", plain, sandbox)
        first.spare = a
        outcomes: list[Outcome] = []
        runner = threading.Thread(target=lambda: outcomes.append(run_worker(first, launcher=launcher)))
        runner.start()
        wait_until(lambda: (first.run_dir / "args.json").exists(), timeout=60)
        gate.touch()  # now the spare's sandbox goes up
        runner.join()
        assert outcomes[0].status == "succeeded", (outcomes[0].error, first.log_path.read_text())
        assert launcher.pids == []
        # the spare was kept for the next run, which takes it once it is up
        assert standby.wait_ready(60) is True
        second = _spec(layout, "second", layout["a"] / "conv.mnn", a, sandbox)
        outcome = run_worker(second, launcher=launcher)
        assert outcome.status == "succeeded", (outcome.error, second.log_path.read_text())
        assert launcher.pids == [spare.pid]
    finally:
        standby.close()
    assert _spares(layout["runs"]) == []
