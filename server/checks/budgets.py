"""Performance budgets: the ``[[budget]]`` (and ``[[pipeline_budget]]``) tables of a project's
``mnnwb.toml``.

```toml
[[budget]]
model = "model.mnn"
reference = "model.onnx"
max_latency_ms = 5.0
max_size_mb = 4
min_cosine = 0.999
```
"""

import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from server.checks.models import Budget
from server.checks.pipeline_budgets import PipelineBudget
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid

CONFIG_FILE = "mnnwb.toml"
T = TypeVar("T", bound=BaseModel)


def _tables(root: Path, key: str, model: type[T]) -> list[T]:
    """The ``[[key]]`` tables of the file, each validated (none without the file); a malformed
    file or table is ``Invalid``, naming the table and field."""
    path = root / CONFIG_FILE
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise Invalid(f"{CONFIG_FILE}: {exc}", code=ErrorCode.BAD_BUDGETS) from None
    entries = data.get(key, [])
    name = key.replace("_", " ")
    if not isinstance(entries, list):
        raise Invalid(f"{CONFIG_FILE}: {name}s are [[{key}]] tables", code=ErrorCode.BAD_BUDGETS)
    found = []
    for number, entry in enumerate(entries, start=1):
        try:
            found.append(model.model_validate(entry))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or key
            raise Invalid(
                f"{CONFIG_FILE}: {name} {number}: {where}: {first['msg']}", code=ErrorCode.BAD_BUDGETS
            ) from None
    return found


def load_budgets(root: Path) -> list[Budget]:
    """Every model budget of the project (none without the file); a malformed file is ``Invalid``."""
    return _tables(root, "budget", Budget)


def load_pipeline_budgets(root: Path) -> list[PipelineBudget]:
    """Every ``[[pipeline_budget]]`` of the project (server/checks/pipeline_budgets.py)."""
    return _tables(root, "pipeline_budget", PipelineBudget)
