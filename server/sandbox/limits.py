"""Why a sandboxed process ended, when one of its limits ended it.

The limits are ``ulimit``'s (``command.py``): past the CPU time the kernel sends SIGXCPU; past
the address space an allocation fails, which Python reports as ``MemoryError`` and C++ as
``std::bad_alloc``, and the process ends with its own error.
"""

import re
import signal
from dataclasses import asdict
from typing import Any

from server.sandbox.policy import Limits

OUT_OF_MEMORY = re.compile(r"bad_alloc|MemoryError|Memory allocation|Cannot allocate memory")


def _size(megabytes: int) -> str:
    return f"{megabytes // 1024} GiB" if megabytes % 1024 == 0 else f"{megabytes} MiB"


def limit_reason(code: int | None, log_tail: str, limits: Limits) -> str | None:
    """``killed: CPU time limit 60 s`` or ``killed: memory limit 4 GiB`` when that is how a
    process with exit status ``code`` ended (its log ending in ``log_tail``), else None."""
    if code is None or code == 0:
        return None
    if limits.cpu_seconds is not None and code == -signal.SIGXCPU:
        return f"killed: CPU time limit {limits.cpu_seconds} s"
    if limits.memory_mb is not None and OUT_OF_MEMORY.search(log_tail):
        return f"killed: memory limit {_size(limits.memory_mb)}"
    return None


def to_record(limits: Limits) -> dict[str, Any]:
    return asdict(limits)


def from_record(record: dict[str, Any] | None) -> Limits:
    return Limits(**(record or {}))
