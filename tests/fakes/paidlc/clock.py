"""Time formats used by the DLC API: RFC 3339 seconds for fields, nanoseconds for log lines."""

import re
import time
from datetime import UTC, datetime

_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$")


def iso(ns: int | None) -> str | None:
    if ns is None:
        return None
    return datetime.fromtimestamp(ns // 1_000_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_nano(ns: int) -> str:
    whole = datetime.fromtimestamp(ns // 1_000_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{whole}.{ns % 1_000_000_000:09d}Z"


def parse_ns(value: str) -> int | None:
    """Parse ``2026-01-02T03:04:05[.fraction]Z`` into nanoseconds since the epoch."""
    match = _STAMP.match(value.strip())
    if not match:
        return None
    whole = datetime.strptime(match[1], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    return int(whole.timestamp()) * 1_000_000_000 + int((match[2] or "0").ljust(9, "0"))


def now_ns() -> int:
    return time.time_ns()
