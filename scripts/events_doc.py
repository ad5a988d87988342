"""Write the table of every websocket event in ``docs/api.md`` from ``server/api/events.py``.

Usage: ``.venv/bin/python scripts/events_doc.py`` rewrites the table between the marker comments
of ``docs/api.md``; ``tests/server/api/test_events_typed.py`` fails when it is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from device_bridge.tab_events import TabEvent  # noqa: E402
from scripts import doc_table  # noqa: E402
from server.api.events import EVENTS  # noqa: E402

DOC = ROOT / "docs" / "api.md"
START = "<!-- events:start (written by scripts/events_doc.py) -->"
END = "<!-- events:end -->"


def _fields(event: type[TabEvent]) -> str:
    names = [f"{name}?" if name in event.OMIT_IF_NONE else name for name in event.model_fields]
    extra = ", …" if event.model_config.get("extra") == "allow" else ""
    return "`{" + ", ".join(names) + extra + "}`"


def _about(event: type[TabEvent]) -> str:
    doc = event.__doc__ if event.__doc__ and event.__doc__ is not TabEvent.__doc__ else ""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    return first.replace("``", "`").replace("|", "\\|")


def render() -> str:
    """The table, markers included, one row per event in channel, then type order."""
    rows = [f"| `{e.CHANNEL}` | `{e.TYPE}` | `{e.__name__}` | {_fields(e)} | {_about(e)} |"
            for e in sorted(EVENTS, key=lambda e: (e.CHANNEL, e.TYPE))]
    return "\n".join([START, "", "| channel | type | model | data | about |", "|---|---|---|---|---|",
                      *rows, "", END])


def section(text: str) -> str:
    """The table as ``docs/api.md`` has it now (markers included), or ``""`` when it has none."""
    return doc_table.section(text, START, END)


def main() -> None:
    doc_table.rewrite(DOC, START, END, render())


if __name__ == "__main__":
    main()
