"""What a sandboxed process may see and use."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Network = Literal["none", "outbound"]


@dataclass(frozen=True)
class Limits:
    """Per-process limits; ``None`` leaves one unset. Memory is the address space, as
    ``ulimit -v`` counts it; pids count every process of the sandbox's user."""

    memory_mb: int | None = None
    pids: int | None = None
    cpu_seconds: int | None = None


@dataclass(frozen=True)
class Policy:
    """``writable`` and ``readable`` folders appear at their own paths; everything else of the
    machine but the system's programs and libraries is absent. ``network`` is ``none`` (a
    loopback of its own) or ``outbound`` (the internet, never this machine's loopback)."""

    cwd: Path
    writable: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()
    network: Network = "none"
    limits: Limits = field(default_factory=Limits)


def exit_status(code: int) -> int:
    """A sandboxed command's status as its caller would see a direct child's: bubblewrap reports
    a command killed by signal N as exit code 128 + N (the shell's convention), so such a code
    reads as the signal (negative, as ``subprocess`` gives it)."""
    return 128 - code if 128 < code <= 128 + 64 else code
