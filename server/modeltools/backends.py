"""MNN's backends on this server: which its MNN build can run, found once by
``device_bridge.backends`` in a child process (trying a GPU backend may crash in its driver), and
the refusal of a run that asks for one it cannot."""

import subprocess
import sys
import threading
from typing import Any

from device_bridge import backends
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.modeltools.runner import environment

PROBE_TIMEOUT_S = 120.0
_lock = threading.Lock()
_found: dict[str, Any] | None = None


def _probe() -> dict[str, Any]:
    argv = [sys.executable, "-P", "-m", "device_bridge.backends"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                              env=environment({}), check=False)
    except subprocess.TimeoutExpired:
        return _failed(f"trying MNN's backends took over {PROBE_TIMEOUT_S:g} s")
    answer = backends.parse(done.stdout)
    if answer is None or "backends" not in answer:
        last = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return _failed(f"trying MNN's backends failed: {last}")
    return answer


def _failed(reason: str) -> dict[str, Any]:
    return {"mnn": None, "backends": [{"name": n, "available": False, "reason": reason}
                                      for n in backends.NAMES], "failed": True}


def server_backends() -> dict[str, Any]:
    """``{mnn, backends: [{name, available, reason}]}``; probed once per server process (a
    failed probe is tried again next time)."""
    global _found
    with _lock:
        if _found is None:
            answer = _probe()
            if answer.get("failed"):
                return {k: v for k, v in answer.items() if k != "failed"}
            _found = answer
        return _found


def require(backend: str) -> None:
    """Refuse a run on a backend this server's MNN cannot run (422 ``backend_unavailable``):
    MNN would silently run it on the CPU. The CPU needs no probe."""
    if backend == "CPU":
        return
    found = server_backends()
    entry = next((b for b in found["backends"] if b["name"] == backend), None)
    if entry is None or not entry["available"]:
        reason = entry["reason"] if entry else "not one of MNN's backends"
        usable = [b["name"] for b in found["backends"] if b["available"]]
        raise Invalid(f"backend {backend} is not available on this server: {reason}",
                      code=ErrorCode.BACKEND_UNAVAILABLE, backend=backend, available=usable)
