"""Write the "Error codes" table of ``docs/api.md`` from ``server/core/error_codes.py``.

Usage: ``.venv/bin/python scripts/error_codes_doc.py`` rewrites the table between the marker
comments of ``docs/api.md``; ``tests/server/api/test_error_codes.py`` fails when it is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts import doc_table  # noqa: E402
from server.core.error_codes import ErrorCode  # noqa: E402

DOC = ROOT / "docs" / "api.md"
START = "<!-- error-codes:start (written by scripts/error_codes_doc.py) -->"
END = "<!-- error-codes:end -->"


def _status(code: ErrorCode) -> str:
    if code.statuses:
        return ", ".join(str(status) for status in code.statuses)
    if code is ErrorCode.ERROR:
        return "the HTTP error's"
    return "none (in a body or event)"


def render() -> str:
    """The table, markers included, one row per ``ErrorCode`` member in code order."""
    rows = [f"| `{code.value}` | {_status(code)} | {code.meaning} |"
            for code in sorted(ErrorCode, key=lambda c: c.value)]
    return "\n".join([START, "", "| code | status | meaning |", "|---|---|---|", *rows, "", END])


def section(text: str) -> str:
    """The table as ``docs/api.md`` has it now (markers included), or ``""`` when it has none."""
    return doc_table.section(text, START, END)


def main() -> None:
    doc_table.rewrite(DOC, START, END, render())


if __name__ == "__main__":
    main()
