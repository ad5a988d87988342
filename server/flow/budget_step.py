"""The flow's budgets step: the project's budgets and the check report of HEAD; with no budgets
yet, a template filled from the newest model's figures (size, latency, cosine)."""

import math
from pathlib import Path
from typing import Any

from server.checks.service import commit_checks, project_budgets
from server.core.errors import AppError
from server.flow.facts import Facts, Made
from server.flow.models import FlowNext, FlowStep
from server.lineage.models import LineageLink
from server.modeltools.models import ToolRun
from server.training.service import head_commit

HEADROOM = 1.2
TEMPLATE_COSINE = 0.999


def _latency_ms(facts: Facts, model: Made) -> float | None:
    """The newest median measured on this very content: on a device, else by a benchmark run."""
    for link in facts.links(LineageLink.sha256 == model.sha256, LineageLink.role == "used"):
        if link.kind == "bench" and isinstance(link.facts.get("median_ms"), (int, float)):
            return float(link.facts["median_ms"])
        run = facts.session.get(ToolRun, link.ref_id) if link.kind == "tool_run" else None
        median = (run.result or {}).get("median_ms") if run and run.tool == "benchmark" else None
        if isinstance(median, (int, float)):
            return float(median)
    return None


def budget_template(facts: Facts, model: Made, reference: Made | None) -> dict[str, Any]:
    """One budget on ``model`` with 20 % headroom over what it measured; figures it has none of
    are left out, not guessed."""
    budget: dict[str, Any] = {"model": model.path}
    path = facts.root / model.path
    if path.is_file():
        budget["max_size_mb"] = math.ceil(path.stat().st_size / 2**20 * HEADROOM * 10) / 10
    latency = _latency_ms(facts, model)
    if latency is not None:
        budget["max_latency_ms"] = round(latency * HEADROOM, 2)
    if reference is not None and reference.path != model.path:
        budget.update(reference=reference.path, min_cosine=TEMPLATE_COSINE)
    return budget


def budgets_step(facts: Facts, data_dir: Path, model: Made | None,
                 reference: Made | None) -> FlowStep:
    run_checks = FlowNext(action="checks", label="Run checks")
    try:
        budgets = project_budgets(facts.project)
    except AppError as exc:
        return FlowStep(id="budgets", title="Budgets", state="failed", detail=exc.detail,
                        next=FlowNext(action="budgets", label="Edit budgets"))
    if not budgets:
        args = {"budgets": [budget_template(facts, model, reference)]} if model else {}
        return FlowStep(id="budgets", title="Budgets", state="todo", detail="No budgets yet",
                        next=FlowNext(action="budgets", label="Add budgets", args=args))
    head = head_commit(facts.root)
    reports = commit_checks(data_dir, facts.project)
    report = next((r for r in reports if r.commit == head), None)
    if report is None:
        detail = f"Last checked at {reports[0].commit[:8]}" if reports else "Checks not run yet"
        return FlowStep(id="budgets", title="Budgets", state="stale" if reports else "todo",
                        detail=f"{len(budgets)} budget(s); {detail}", next=run_checks)
    if not report.passed:
        first = report.failures[0]
        return FlowStep(id="budgets", title="Budgets", state="failed", next=run_checks,
                        detail=f"{first.metric} of {first.model} is {first.value}, "
                               f"the budget allows {first.limit}")
    return FlowStep(id="budgets", title="Budgets", state="done", next=run_checks,
                    detail=f"{len(budgets)} budget(s) pass at {report.commit[:8]}")
