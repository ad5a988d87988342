"""The agent's state folder: its persistent device id, its device token and the sessions' files."""

import hashlib
import json
import os
import platform
import socket
import sys
import time
import uuid
from importlib import metadata
from pathlib import Path
from typing import Any

import psutil

from device_bridge.atomic import write_json_atomic
from device_bridge.playground import cameras

AGENT_VERSION = "1"


class AgentState:
    """Files under the agent home: ``device.json`` (id, token) and ``sessions/<sid>/``."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.home.mkdir(parents=True, exist_ok=True)
        self.sessions_dir = home / "sessions"
        self.sessions_dir.mkdir(exist_ok=True)
        self._file = home / "device.json"
        self._data = self._load()
        if "id" not in self._data:
            self._data["id"] = uuid.uuid4().hex
            self._save()

    def _load(self) -> dict[str, str]:
        try:
            loaded = json.loads(self._file.read_text())
        except (OSError, ValueError):
            return {}
        return loaded if isinstance(loaded, dict) else {}

    def _save(self) -> None:
        write_json_atomic(self._file, self._data, mode=0o600)

    @property
    def device_id(self) -> str:
        return self._data["id"]

    def token_for(self, pairing_code: str | None) -> str | None:
        """The token to present: the stored device token, unless a new pairing code is given."""
        stored = self._data.get("token")
        if pairing_code and _digest(pairing_code) != self._data.get("paired_with"):
            return pairing_code
        return stored or pairing_code

    def remember_token(self, token: str, pairing_code: str | None) -> None:
        self._data["token"] = token
        if pairing_code:
            self._data["paired_with"] = _digest(pairing_code)
        self._save()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def device_info(device_id: str, name: str | None, checks: list[dict[str, Any]],
                agent_sha256: str | None,
                backends: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What the agent tells the hub about this device; MNN's version without importing it, and
    its backends as the doctor found them (``device_bridge.backends``; None without MNN) and its
    own cameras for the Playground (``device_bridge.playground.cameras``; None without OpenCV)."""
    try:
        mnn_version: str | None = metadata.version("MNN")
    except metadata.PackageNotFoundError:
        mnn_version = None
    return {
        "id": device_id,
        "name": (name or socket.gethostname() or "device")[:128],
        "os": f"{platform.system()} {platform.release()}"[:128],
        "arch": (platform.machine() or "unknown")[:64],
        "python": platform.python_version(),
        "mnn": mnn_version,
        "cpus": os.cpu_count() or 0,
        "mem": psutil.virtual_memory().total,
        "agent": f"{AGENT_VERSION} ({sys.platform})",
        "agent_sha256": agent_sha256,
        "time": time.time(),
        "checks": checks,
        "backends": backends,
        "cameras": cameras.cameras(),
    }
