"""Progress lines a worker prints on its log; the runner turns them into events."""

import json
import sys

PREFIX = "MNNWB_PROGRESS "


def report(fraction: float, stage: str) -> None:
    sys.stdout.write(f"{PREFIX}{json.dumps({'fraction': round(fraction, 3), 'stage': stage})}\n")
    sys.stdout.flush()


def parse(line: str) -> dict | None:
    """The progress payload of a log line, or None when the line is ordinary output."""
    if not line.startswith(PREFIX):
        return None
    try:
        data = json.loads(line[len(PREFIX) :])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
