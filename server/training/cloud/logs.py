"""Incremental pod logs without duplicates.

``GetPodLogs`` answers lines that start with an RFC 3339 timestamp (nanosecond precision) and
filters by ``StartTime`` (inclusive, whole seconds are enough). A ``LogCursor`` remembers the
last timestamp seen and how many lines carried it; the next request starts at that second and
every line at or before the cursor is dropped. ``MaxLines`` caps an answer at the first lines
after ``StartTime``, so a full answer is followed at once by another request. Lines without a
timestamp fall back to counting: the cursor then holds how many lines were already taken from
the start of the log.
"""

import re
from datetime import UTC, datetime

from pydantic import BaseModel

_STAMPED = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z (.*)$", re.S)


class LogCursor(BaseModel):
    """Where a log reader stopped; store it to continue later (e.g. after a restart)."""

    time: str | None = None
    skip: int = 0

    def start_time(self) -> str | None:
        """``StartTime`` for the next request: the cursor's second, so nothing is missed."""
        return self.time[:19] + "Z" if self.time else None


class LogChunk(BaseModel):
    lines: list[str]
    cursor: LogCursor


def _split(line: str) -> tuple[int | None, str | None, str]:
    match = _STAMPED.match(line)
    if not match:
        return None, None, line
    whole = datetime.strptime(match[1], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    ns = int(whole.timestamp()) * 1_000_000_000 + int((match[2] or "0").ljust(9, "0"))
    stamp = f"{match[1]}.{(match[2] or '0').ljust(9, '0')}Z"
    return ns, stamp, match[3]


def _ns(stamp: str | None) -> int | None:
    return _split(f"{stamp} ")[0] if stamp else None


def take_new(raw: list[str], cursor: LogCursor) -> tuple[list[str], LogCursor]:
    """The lines of one answer that come after ``cursor``, and the cursor after them."""
    parsed = [_split(line) for line in raw]
    if cursor.time is None and all(ns is None for ns, _, _ in parsed):
        fresh = [text for _, _, text in parsed[cursor.skip :]]
        return fresh, LogCursor(skip=cursor.skip + len(fresh))
    seen_ns, skip = _ns(cursor.time), cursor.skip
    last_ns, last_stamp, count = seen_ns, cursor.time, cursor.skip
    fresh = []
    for ns, stamp, text in parsed:
        if ns is None:  # an unstamped line belongs with the line before it
            ns, stamp = last_ns, last_stamp
        if seen_ns is not None and ns is not None:
            if ns < seen_ns:
                continue
            if ns == seen_ns and skip > 0:
                skip -= 1
                continue
        fresh.append(text)
        if ns == last_ns:
            count += 1
        else:
            last_ns, last_stamp, count = ns, stamp, 1
    return fresh, LogCursor(time=last_stamp, skip=count)
