"""The budgets form: the ``[[budget]]`` tables as written, saving them back with every error
named by budget and field, and a template of budgets for the project's models."""

import math
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from server.checks.budget_toml import write_budgets
from server.checks.budgets import CONFIG_FILE
from server.checks.models import Budget, BudgetFieldError
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files import service as files

TEMPLATE_MODELS = 20
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__"}
SIZE_HEADROOM = 1.1
TEMPLATE_COSINE = 0.999


def _config_text(root: Path) -> str:
    path = root / CONFIG_FILE
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else ""
    except UnicodeDecodeError as exc:
        raise Invalid(f"{CONFIG_FILE}: {exc}", code=ErrorCode.BAD_BUDGETS) from None


def budget_tables(root: Path) -> list[dict[str, Any]]:
    """Every ``[[budget]]`` table with all its keys, the unknown ones too."""
    try:
        data = tomllib.loads(_config_text(root))
    except tomllib.TOMLDecodeError as exc:
        raise Invalid(f"{CONFIG_FILE}: {exc}", code=ErrorCode.BAD_BUDGETS) from None
    tables = data.get("budget", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise Invalid(f"{CONFIG_FILE}: budgets are [[budget]] tables", code=ErrorCode.BAD_BUDGETS)
    return tables


def field_errors(budgets: list[dict[str, Any]]) -> list[BudgetFieldError]:
    """What is wrong with each budget, by its number (from 1) and field ("" for the whole)."""
    errors = []
    for number, budget in enumerate(budgets, start=1):
        try:
            Budget.model_validate(budget)
        except ValidationError as exc:
            for error in exc.errors():
                field = str(error["loc"][0]) if error["loc"] else ""
                errors.append(BudgetFieldError(budget=number, field=field, detail=error["msg"]))
    return errors


def save_budgets(root: Path, budgets: list[dict[str, Any]]) -> list[Budget]:
    """Writes the budgets into ``mnnwb.toml``, the rest of the file as it was; nothing is
    written while one budget has an error."""
    errors = field_errors(budgets)
    if errors:
        first = errors[0]
        where = f"budget {first.budget}: {first.field or 'budget'}"
        raise Invalid(f"{CONFIG_FILE}: {where}: {first.detail}", code=ErrorCode.BAD_BUDGETS,
                      errors=[e.model_dump() for e in errors])
    text = write_budgets(_config_text(root), budgets)
    files.save_file(str(root), CONFIG_FILE, text, None, None)
    return [Budget.model_validate(b) for b in budgets]


def _models(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        found.extend(Path(folder) / n for n in sorted(names) if n.endswith(".mnn"))
        if len(found) >= TEMPLATE_MODELS:
            break
    return found[:TEMPLATE_MODELS]


def budget_template(root: Path) -> list[Budget]:
    """One budget per model of the project: its size now with 10 % headroom, and, where an
    ``.onnx`` of the same name stands beside it, a cosine of 0.999 against it."""
    budgets = []
    for model in _models(root):
        size_mb = model.stat().st_size / 2**20
        reference = model.with_suffix(".onnx")
        has_reference = reference.is_file()
        budgets.append(Budget(
            model=model.relative_to(root).as_posix(),
            max_size_mb=max(0.1, math.ceil(size_mb * SIZE_HEADROOM * 10) / 10),
            reference=reference.relative_to(root).as_posix() if has_reference else None,
            min_cosine=TEMPLATE_COSINE if has_reference else None,
        ))
    return budgets
