"""Which of MNN's backends this machine's MNN build really has, and the session settings to run one.

MNN replaces a backend it lacks with the CPU without failing: ``createSession`` with
``backend: OPENCL`` on a build without OpenCL prints ``Can't Find type=3 backend, use 0 instead``
and runs on the CPU. So a backend is tried on a one-op model and the session is asked which
backend it got (``getSessionInfo`` with ``BACKENDS``: the forward type of its first backend;
the CPU answers 0, or 13 when it uses its SIMD extension). The workbench's tools and the device
agent both use this module, so it needs nothing but the standard library and MNN.

``python -m device_bridge.backends`` prints the probe as JSON lines after ``MARK`` (MNN's own
messages go to the same stdout); run it as a child process: a GPU driver may crash it.
"""

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

MARK = "MNNWB_BACKENDS "
NAMES = ("CPU", "OpenCL", "Vulkan", "CUDA", "Metal", "CoreML", "NNAPI")
# MNNForwardType (include/MNN/MNNForwardType.h of MNN); CoreML and NNAPI are both MNN_FORWARD_NN
FORWARD = {"CPU": 0, "Metal": 1, "CUDA": 2, "OpenCL": 3, "CoreML": 5, "NNAPI": 5, "Vulkan": 7}
CPU_TYPES = (0, 13)  # MNN_FORWARD_CPU, MNN_FORWARD_CPU_EXTENSION
# BackendConfig's PrecisionMode, PowerMode and MemoryMode, passed as numbers: MNN prints a line for
# each precision given by name, and reads power and memory only as numbers.
PRECISION = {"normal": 0, "high": 1, "low": 2, "low_bf16": 3}
POWER = {"normal": 0, "high": 1, "low": 2}
MEMORY = {"normal": 0, "high": 1, "low": 2}
# On a GPU backend MNN reads numThread as its GPU mode: MNN_GPU_TUNING_WIDE, its default.
GPU_MODE = 4
_CMAKE = {"OpenCL": "MNN_OPENCL", "Vulkan": "MNN_VULKAN", "CUDA": "MNN_CUDA", "Metal": "MNN_METAL",
          "CoreML": "MNN_COREML", "NNAPI": "MNN_NNAPI"}
_NEEDS = {"OpenCL": "an OpenCL driver (libOpenCL.so)", "Vulkan": "a Vulkan driver",
          "CUDA": "an NVIDIA GPU with its CUDA driver", "Metal": "an Apple GPU",
          "CoreML": "Core ML (macOS or iOS)", "NNAPI": "Android's Neural Networks API"}


def canonical(name: str) -> str | None:
    """A backend name as listed in ``NAMES``, whatever its case (``opencl`` → ``OpenCL``)."""
    return next((known for known in NAMES if known.lower() == name.strip().lower()), None)


def _android() -> bool:
    return hasattr(sys, "getandroidapilevel") or "ANDROID_ROOT" in os.environ


def platform_reason(name: str) -> str | None:
    """Why a backend cannot exist on this kind of machine at all, or None."""
    apple = sys.platform == "darwin"
    if name in ("Metal", "CoreML") and not apple:
        return f"{name} runs on Apple devices only (this is {sys.platform})"
    if name == "NNAPI" and not _android():
        return f"NNAPI is Android's (this is {sys.platform})"
    return None


def session_config(backend: str = "CPU", threads: int = 1, precision: str = "normal",
                   power: str = "normal", memory: str = "normal") -> dict[str, Any]:
    """``Interpreter.createSession``'s config for these settings (all as numbers)."""
    return {
        "backend": FORWARD[backend],
        "numThread": threads if backend == "CPU" else GPU_MODE,
        "precision": PRECISION[precision],
        "power": POWER[power],
        "memory": MEMORY[memory],
    }


def name_of(forward: int, requested: str | None = None) -> str:
    """The backend name of a session's forward type (``requested`` tells CoreML from NNAPI)."""
    if forward in CPU_TYPES:
        return "CPU"
    found = [name for name, kind in FORWARD.items() if kind == forward]
    if requested in found:
        return requested
    return found[0] if found else f"MNN forward type {forward}"


def used(net: Any, session: Any, requested: str | None = None) -> str:
    """The backend a session runs on (its first one; ops a GPU lacks still fall back to the CPU)."""
    return name_of(int(net.getSessionInfo(session, 2)), requested)


def unavailable(name: str, version: str) -> str:
    """Why MNN ran a backend's session on the CPU instead."""
    return (f"MNN {version} here has no usable {name} backend (it would run on the CPU instead): "
            f"that needs MNN built with -D{_CMAKE[name]}=ON and {_NEEDS[name]}")


def _tiny_model(folder: Path) -> Path:
    import MNN

    F = MNN.expr
    x = F.placeholder([1, 4, 8, 8], F.NCHW)
    x.name = "x"
    y = F.relu(x)
    y.name = "y"
    path = folder / "probe.mnn"
    F.save([y], str(path))
    return path


def probe() -> dict[str, Any]:
    """``{mnn, backends: [{name, available, reason}]}`` for every name of ``NAMES``."""
    import MNN

    version = MNN.version()
    found = []
    with tempfile.TemporaryDirectory(prefix="mnnwb-backends-") as folder:
        model = str(_tiny_model(Path(folder)))
        for name in NAMES:
            reason = platform_reason(name)
            if reason is None:
                net = MNN.Interpreter(model)
                session = net.createSession(session_config(name))
                got = used(net, session, name)
                reason = None if got == name else unavailable(name, version)
                del session, net
            found.append({"name": name, "available": reason is None, "reason": reason or ""})
    return {"mnn": version, "backends": found}


def parse(stdout: str) -> dict[str, Any] | None:
    """The probe's answer from a child's output, or None when it printed none."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARK):
            try:
                answer = json.loads(line[len(MARK):])
            except ValueError:
                return None
            return answer if isinstance(answer, dict) else None
    return None


def _say(answer: dict[str, Any]) -> None:
    sys.stdout.flush()
    sys.stdout.write(MARK + json.dumps(answer) + "\n")
    sys.stdout.flush()


def main() -> None:
    """A first line once MNN is imported (``{mnn}``), the whole probe once done: a child that
    dies while trying a backend still told that MNN loads."""
    import MNN

    _say({"mnn": MNN.version()})
    _say(probe())


if __name__ == "__main__":
    main()
