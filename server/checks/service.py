"""Run a project's budgets: the same code for the API, the Source Control panel and
``mnnwb check`` (which has no server)."""

from pathlib import Path

from server.checks import store
from server.checks.budgets import CONFIG_FILE, load_budgets, load_pipeline_budgets
from server.checks.measure import DeviceRun, measure, worker_tool
from server.checks.models import Budget, CheckReport, CommitCheck
from server.checks.pipeline_budgets import DeviceSide, files_read, measure_pipeline
from server.checks.state import commit_state
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.modeltools.runner import Limits
from server.projects.models import Project


def run_checks(
    root: Path, device: str | None = None, limits: Limits | None = None, on_device: DeviceRun | None = None
) -> CheckReport:
    """Measure every budget (those for ``device`` only, when given) against its limits; budgets
    on a paired device need ``on_device`` for their latency and memory."""
    budgets = [b for b in load_budgets(root) if device is None or b.device == device]
    pipelines = [b for b in load_pipeline_budgets(root) if device is None or b.device == device]
    if not budgets and not pipelines:
        where = f" for device {device!r}" if device else ""
        raise Invalid(f"no budgets{where}: add [[budget]] or [[pipeline_budget]] tables to {CONFIG_FILE}",
                      code=ErrorCode.NO_BUDGETS)
    results = [result for budget in budgets for result in measure(root, budget, limits, on_device=on_device)]
    run = worker_tool(limits or Limits())
    side = on_device if isinstance(on_device, DeviceSide) else None
    for pipeline in pipelines:
        results += measure_pipeline(root, pipeline, run, side)
    commit, clean = commit_state(root, budgets, {f for p in pipelines for f in files_read(root, p)})
    return CheckReport(passed=all(r.passed for r in results), results=results, commit=commit, clean=clean)


def project_budgets(project: Project) -> list[Budget]:
    return load_budgets(Path(project.path))


def run_project_checks(
    data_dir: Path, project: Project, device: str | None, on_device: DeviceRun | None = None
) -> CheckReport:
    """``run_checks`` on a project; a clean tree's report is kept under its commit, and a failed
    one names the last commit whose checks passed (to diff against)."""
    report = run_checks(Path(project.path), device, on_device=on_device)
    store.save(data_dir, project.id, report)
    if not report.passed:
        report.last_passing = store.last_passing(data_dir, project.id)
    return report


def commit_checks(data_dir: Path, project: Project) -> list[CommitCheck]:
    return store.commit_checks(data_dir, project.id)
