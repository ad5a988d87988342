"""A table of a doc written from the code, between two marker comments (the error codes and the
websocket events of ``docs/api.md``); the tests compare the doc's with a fresh one."""

from __future__ import annotations

import sys
from pathlib import Path


def section(text: str, start: str, end: str) -> str:
    """The table as ``text`` has it now (markers included), or ``""`` when it has none."""
    if start not in text or end not in text:
        return ""
    return text[text.index(start):text.index(end) + len(end)]


def rewrite(doc: Path, start: str, end: str, table: str) -> None:
    """Put ``table`` (markers included) in place of the one between the markers of ``doc``."""
    text = doc.read_text(encoding="utf-8")
    current = section(text, start, end)
    if not current:
        sys.exit(f"{doc.name} has no {start} ... {end} markers")
    doc.write_text(text.replace(current, table), encoding="utf-8")
