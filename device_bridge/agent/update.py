"""Self-update: when the workbench serves another agent build, fetch it, verify it, restart.

The welcome names the sha256 of the workbench's ``agent.pyz``. An agent running from a zipapp
whose own sha256 differs downloads the new one with its device token, refuses it unless its
sha256 is the announced one, swaps the file atomically and starts it in place of itself.
"""

import hashlib
import os
import sys
import urllib.request
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit, urlunsplit

from device_bridge import wire
from device_bridge.atomic import write_bytes_atomic

AGENT_PATH = "/bridge/v1/agent.pyz"
SHA_HEADER = "X-MNNWB-Agent-SHA256"
DOWNLOAD_TIMEOUT = 120.0


class UpdateRefused(Exception):
    pass


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def download_url(ws_url: str) -> str:
    """The device websocket URL → the agent download URL on the same server."""
    parts = urlsplit(ws_url)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    path = parts.path[: -len(wire.WS_PATH)] if parts.path.endswith(wire.WS_PATH) else parts.path
    return urlunsplit((scheme, parts.netloc, path.rstrip("/") + AGENT_PATH, "", ""))


def fetch(url: str, token: str) -> bytes:
    headers = {"Authorization": f"Bearer {token}"}
    request = urllib.request.Request(url, headers=headers)  # noqa: S310 - http(s) from bridge_url
    with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT) as answer:  # noqa: S310
        data: bytes = answer.read()
    return data


def install(pyz: Path, data: bytes, expected: str) -> None:
    """Replace ``pyz`` with ``data`` only if its sha256 is ``expected``."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise UpdateRefused(f"the downloaded agent has sha256 {actual}, not the announced "
                            f"{expected}: not running it, keeping this version")
    write_bytes_atomic(pyz, data)


def restart(pyz: Path) -> NoReturn:
    """Run the new zipapp in this process, with the same arguments."""
    os.execv(sys.executable, [sys.executable, str(pyz), *sys.argv[1:]])  # noqa: S606
