"""``agent.pyz``: the device agent as one zipapp, built from this workbench's ``device_bridge``.

Only the ``device_bridge`` package goes in (it never imports the server), with
``device_bridge/agent/pyz_main.py`` as the archive's ``__main__.py``. Entries are sorted and
time-stamped alike, so one source tree always gives the same bytes and the same sha256: agents
update only when the code changed.
"""

import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import device_bridge

SHEBANG = b"#!/usr/bin/env python3\n"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)
MAIN = "agent/pyz_main.py"


@dataclass(frozen=True)
class AgentBuild:
    data: bytes
    sha256: str


def _entry(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    zf.writestr(info, data)


def build_agent(package: Path | None = None) -> AgentBuild:
    root = package or Path(device_bridge.__file__).parent
    buffer = io.BytesIO()
    buffer.write(SHEBANG)
    with zipfile.ZipFile(buffer, "w") as zf:
        _entry(zf, "__main__.py", (root / MAIN).read_bytes())
        for source in sorted(root.rglob("*.py")):
            _entry(zf, f"{root.name}/{source.relative_to(root).as_posix()}", source.read_bytes())
    data = buffer.getvalue()
    return AgentBuild(data, hashlib.sha256(data).hexdigest())
