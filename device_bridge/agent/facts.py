"""The agent's facts about its device after ``hello``: probed again (the doctor's local checks,
MNN's backends) when the hub asks (``facts.refresh``) or when the agent sees a package it checks
appear, go or change version (MNN installed as the doctor said, an upgrade), and sent as
``device.facts`` without reconnecting (docs/protocol.md, "Fresh facts")."""

import asyncio
import importlib
import sys
from collections.abc import Callable
from importlib import metadata, util
from pathlib import Path
from typing import Any

from device_bridge.agent import doctor
from device_bridge.agent.packages import MNN_PACKAGES, REQUIRED

WATCHED = (*MNN_PACKAGES, *REQUIRED)
Fingerprint = tuple[tuple[str, str | None], ...]


def _version(name: str) -> str | None:
    if util.find_spec(name) is None:
        return None
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "version unknown"


def fingerprint() -> Fingerprint:
    """Each watched package's version, None when it does not import (cheap: no import runs)."""
    importlib.invalidate_caches()
    return tuple((name, _version(name)) for name in WATCHED)


class Facts:
    """What the hello said of the device's packages, kept up to date; ``info(checks, backends)``
    builds the device's facts (``state.device_info``), ``send`` queues a message for the hub."""

    def __init__(self, lib: Path, checks: list[dict[str, Any]], backends: list[dict[str, Any]] | None,
                 info: Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], dict[str, Any]],
                 send: Callable[[dict[str, Any]], None]) -> None:
        self.checks, self.backends = checks, backends
        self._lib, self._info, self._send = lib, info, send
        self._seen = fingerprint()
        self._probing = False

    def hello_info(self) -> dict[str, Any]:
        return self._info(self.checks, self.backends)

    async def check(self) -> None:
        """Probe again if a watched package changed since the last probe (called on each ping)."""
        if not self._probing and await asyncio.to_thread(fingerprint) != self._seen:
            await self.refresh("changed")

    async def refresh(self, reason: str) -> None:
        """Run the doctor's local checks again and send the device's facts."""
        if self._probing:
            return
        self._probing = True
        try:
            seen = await asyncio.to_thread(fingerprint)
            checks, backends = await asyncio.to_thread(doctor.local_report, self._lib)
            self.checks, self.backends, self._seen = [c.view() for c in checks], backends, seen
            info = await asyncio.to_thread(self.hello_info)
            self._send({"type": "device.facts", "device": info, "reason": reason})
        except (OSError, ValueError, RuntimeError) as exc:  # the hello's facts stay in place
            print(f"mnnwb-agent: probing the device again failed: {type(exc).__name__}: {exc}",
                  file=sys.stderr, flush=True)
        finally:
            self._probing = False
