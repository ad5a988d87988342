"""Performance budgets: read them, run them, and the stored result of each commit."""

from pathlib import Path

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool

from server.api.deps import DeviceBenchDep, EditableProject, ProjectDep, RunnerProject, SettingsDep
from server.checks import budget_form, service
from server.checks.models import Budget, BudgetTables, CheckReport, CheckRequest, CommitCheck

router = APIRouter(prefix="/api/projects/{pid}", tags=["checks"])




@router.get("/budgets")
def budgets(project: ProjectDep) -> list[Budget]:
    return service.project_budgets(project)


@router.get("/budgets/tables")
def budget_tables(project: ProjectDep) -> BudgetTables:
    return BudgetTables(budgets=budget_form.budget_tables(Path(project.path)))


@router.put("/budgets")
def save_budgets(project: EditableProject, body: BudgetTables) -> list[Budget]:
    return budget_form.save_budgets(Path(project.path), body.budgets)


@router.get("/budgets/template")
def budget_template(project: ProjectDep) -> list[Budget]:
    return budget_form.budget_template(Path(project.path))


@router.post("/checks")
async def run_checks(
    body: CheckRequest, project: RunnerProject, settings: SettingsDep, devices: DeviceBenchDep
) -> CheckReport:
    return await run_in_threadpool(
        service.run_project_checks, settings.data_dir, project, body.device, devices.for_project(project)
    )


@router.get("/checks/commits")
def commit_checks(project: ProjectDep, settings: SettingsDep) -> list[CommitCheck]:
    return service.commit_checks(settings.data_dir, project)
