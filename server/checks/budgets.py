"""Performance budgets: the ``[[budget]]`` tables of a project's ``mnnwb.toml``.

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

from pydantic import ValidationError

from server.checks.models import Budget
from server.core.errors import Invalid

CONFIG_FILE = "mnnwb.toml"


def load_budgets(root: Path) -> list[Budget]:
    """Every budget of the project (none without the file); a malformed file is ``Invalid``."""
    path = root / CONFIG_FILE
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise Invalid(f"{CONFIG_FILE}: {exc}", code="bad_budgets") from None
    entries = data.get("budget", [])
    if not isinstance(entries, list):
        raise Invalid(f"{CONFIG_FILE}: budgets are [[budget]] tables", code="bad_budgets")
    budgets = []
    for number, entry in enumerate(entries, start=1):
        try:
            budgets.append(Budget.model_validate(entry))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "budget"
            raise Invalid(
                f"{CONFIG_FILE}: budget {number}: {where}: {first['msg']}", code="bad_budgets"
            ) from None
    return budgets
