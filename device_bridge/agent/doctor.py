"""``python3 agent.pyz doctor``: what works on this device and what to install.

Standard library only, so it answers even where the agent's own packages are missing. The same
local checks travel in the agent's ``hello`` and show in the workbench's Devices panel.
"""

import email.utils
import json
import os
import platform
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from importlib import metadata, util
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from device_bridge import backends
from device_bridge.agent.packages import MNN_PACKAGES, REQUIRED, pip_command

MNN_FEATURES = "The device supports"
MNN_IMPORT_TIMEOUT = 120.0  # an emulated device imports MNN slowly
SKEW_LIMIT = 5.0  # seconds; the HTTP Date header has a resolution of one second


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True

    def view(self) -> dict[str, Any]:
        return asdict(self)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "version unknown"


def _install_fix(lib: Path, requirements: list[str]) -> str:
    return " ".join(f"'{word}'" if ">" in word else word for word in pip_command(lib, requirements))


def python_check() -> Check:
    version = platform.python_version()
    ok = sys.version_info >= (3, 11)
    detail = f"{version} on {platform.system()} {platform.machine()} ({sys.executable})"
    return Check("python", ok, detail, "" if ok else "install Python 3.11 or newer")


def package_check(name: str, requirement: str, lib: Path, required: bool) -> Check:
    if util.find_spec(name) is not None:
        return Check(name, True, _version(name), required=required)
    return Check(name, False, "not installed", _install_fix(lib, [requirement]), required)


def _package_path() -> dict[str, str]:
    """The environment of a child that imports ``device_bridge`` (from a zipapp too)."""
    import device_bridge

    parent = str(Path(device_bridge.__file__).resolve().parents[1])
    paths = [parent, os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def mnn_probe(lib: Path) -> tuple[Check, dict[str, Any] | None]:
    """Import MNN in a child (its native code may crash, and it prints its CPU features) that
    also tries each of MNN's backends (``device_bridge.backends``): the check, and the probe's
    answer ``{mnn, backends}`` when MNN loads."""
    fix = _install_fix(lib, list(MNN_PACKAGES.values()))
    if util.find_spec("MNN") is None:
        return Check("MNN", False, "not installed: on-device benchmarks and tensor watchpoints "
                     "will fail", fix, required=False), None
    try:
        done = subprocess.run([sys.executable, "-m", "device_bridge.backends"], capture_output=True,
                              text=True, timeout=MNN_IMPORT_TIMEOUT, check=False,
                              env=_package_path())
    except subprocess.TimeoutExpired:
        return Check("MNN", False, "importing MNN did not finish", fix, required=False), None
    probed = backends.parse(done.stdout)
    last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
    if probed is None:
        return Check("MNN", False, f"installed but does not load: {last}", fix, required=False), None
    features = next((line.strip() for line in done.stdout.splitlines()
                     if line.startswith(MNN_FEATURES)), "no CPU feature line printed")
    if "backends" not in probed:  # MNN loads; trying a backend ended the child (a GPU driver)
        return Check("MNN", True, f"{_version('MNN')}; {features}; trying its backends failed: "
                     f"{last}", required=False), None
    usable = ", ".join(b["name"] for b in probed["backends"] if b["available"]) or "none"
    detail = f"{_version('MNN')}; {features}; backends: {usable}"
    return Check("MNN", True, detail, required=False), probed


def local_report(lib: Path) -> tuple[list[Check], list[dict[str, Any]] | None]:
    """The local checks, and MNN's backends on this device (None without a working MNN)."""
    checks = [python_check()]
    checks += [package_check(name, req, lib, True) for name, req in REQUIRED.items()]
    checks.append(package_check("numpy", MNN_PACKAGES["numpy"], lib, False))
    mnn, probed = mnn_probe(lib)
    checks.append(mnn)
    return checks, probed["backends"] if probed else None


def local_checks(lib: Path) -> list[Check]:
    return local_report(lib)[0]


def health_url(server: str) -> str:
    parts = urlsplit(server if "://" in server else f"http://{server}")
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, "/api/health", "", ""))


def server_checks(server: str) -> list[Check]:
    """Reach the workbench's health check and compare the clocks by its ``Date`` header."""
    url = health_url(server)
    sent = time.time()
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - http(s) only
            body = json.loads(answer.read())
            date = answer.headers.get("Date")
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return [Check("server", False, f"cannot reach {url}: {reason}",
                      "check the address, that the workbench runs and listens on it, firewalls")]
    local = (sent + time.time()) / 2
    checks = [Check("server", True, f"reached {url}: MNN Workbench {body.get('version', '?')}")]
    if date:
        skew = local - email.utils.parsedate_to_datetime(date).timestamp()
        ahead = "ahead of" if skew > 0 else "behind"
        ok = abs(skew) < SKEW_LIMIT
        checks.append(Check("clock", ok, f"{abs(skew):.0f} s {ahead} the workbench's clock",
                            "" if ok else "set this device's clock (turn on network time)"))
    return checks


def render(checks: list[Check]) -> str:
    lines = []
    for check in checks:
        mark = "ok" if check.ok else ("MISSING" if check.required else "missing")
        lines.append(f"{mark:<8} {check.name:<11} {check.detail}")
        if check.fix:
            lines.append(f"{'':<8} {'':<11} fix: {check.fix}")
    return "\n".join(lines)


def run(lib: Path, server: str | None) -> int:
    """Print the report; exit code 1 when something the agent needs is missing."""
    checks = local_checks(lib)
    if server:
        checks += server_checks(server)
    print(render(checks))
    if not server:
        print("(give --server URL to check the connection and the clock)")
    return 1 if any(c.required and not c.ok for c in checks) else 0
