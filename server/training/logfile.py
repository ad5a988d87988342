"""Reading a job's log file and the ``MNNWB_METRIC {json}`` lines in it."""

import json
import math
from pathlib import Path
from typing import Any

from server.core.fsutil import write_text_atomic

METRIC_PREFIX = "MNNWB_METRIC "
METRICS_FILE = "metrics.jsonl"
LOG_FILE = "output.log"


def parse_metrics(text: str) -> list[dict[str, Any]]:
    """The metric objects printed in ``text``; malformed metric lines are plain log lines."""
    points = []
    for line in text.splitlines():
        if not line.startswith(METRIC_PREFIX):
            continue
        try:
            value = json.loads(line[len(METRIC_PREFIX) :])
        except ValueError:
            continue
        if isinstance(value, dict):
            points.append({key: _json_safe(v) for key, v in value.items()})
    return points


def _json_safe(value: Any) -> Any:
    """NaN and ±Infinity (Python's json prints them) as the strings JSON can carry, so a diverged
    loss reaches the charts as a mark instead of breaking every response that holds it."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    return value


def utf8_cut(data: bytes) -> int:
    """The largest length <= len(data) that does not split a UTF-8 character."""
    end = len(data)
    for back in range(1, min(4, end) + 1):
        byte = data[end - back]
        if byte & 0xC0 == 0x80:  # a continuation byte: keep looking for the lead byte
            continue
        width = 1 if byte < 0x80 else 4 if byte >= 0xF0 else 3 if byte >= 0xE0 else 2
        return end if back >= width else end - back
    return end


def read_text(path: Path, offset: int, limit: int) -> tuple[str, int]:
    """Up to ``limit`` bytes of the file from ``offset``, decoded; returns (text, next offset)."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read(limit)
    except FileNotFoundError:
        return "", offset
    if len(data) == limit:
        data = data[: utf8_cut(data)]
    return data.decode("utf-8", "replace"), offset + len(data)


def append_metrics(job_dir: Path, points: list[dict[str, Any]]) -> None:
    with (job_dir / METRICS_FILE).open("a") as handle:
        handle.writelines(json.dumps(point) + "\n" for point in points)


def read_metrics(job_dir: Path) -> list[dict[str, Any]]:
    try:
        lines = (job_dir / METRICS_FILE).read_text().splitlines()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in lines if line]


def rebuild_metrics(job_dir: Path) -> int:
    """Re-derive the metrics file from the log's complete lines; returns the bytes covered.

    Used when a restarted server re-attaches to a job: whatever the previous server read or
    missed, the metrics then match the log exactly, and tailing resumes after the last newline.
    """
    log = job_dir / LOG_FILE
    data = log.read_bytes() if log.exists() else b""
    covered = data.rfind(b"\n") + 1
    points = parse_metrics(data[:covered].decode("utf-8", "replace"))
    write_text_atomic(job_dir / METRICS_FILE, "".join(json.dumps(point) + "\n" for point in points))
    return covered
