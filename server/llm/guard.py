"""Keep ``llmexport`` from installing packages or phoning home.

Its converter step runs ``from MNN.tools import mnnconvert``, and importing ``MNN.tools`` loads a
logger that runs ``pip install -U aliyun-log-python-sdk`` through ``os.system`` and then opens a
telemetry URL. ``seal()`` puts a module of our own under that name first — it calls the native
converter ``_tools.mnnconvert`` directly, as the model tools do — and adds an audit hook that
refuses sockets, ``os.system`` and new processes for the rest of the worker's life, so nothing
else can reach the network or pip either.
"""

import sys
import types
from typing import Any

REFUSED = ("socket.connect", "socket.bind", "socket.getaddrinfo", "os.system", "os.exec",
           "os.posix_spawn", "os.spawn", "subprocess.Popen")


class Refused(PermissionError):
    pass


def _mnnconvert_module() -> types.ModuleType:
    import _tools

    module = types.ModuleType("MNN.tools.mnnconvert")
    module.__dict__["main"] = lambda: _tools.mnnconvert(list(sys.argv))
    module.__dict__["SEALED"] = True
    return module


def _refuse(event: str, args: Any) -> None:
    if event.startswith(REFUSED):
        raise Refused(f"{event} is refused in an MNN-LLM worker")


def seal() -> None:
    package = types.ModuleType("MNN.tools")
    package.__path__ = []
    package.__dict__["SEALED"] = True
    sys.modules["MNN.tools"] = package
    sys.modules["MNN.tools.mnnconvert"] = _mnnconvert_module()
    sys.addaudithook(_refuse)

