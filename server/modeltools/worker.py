"""One model-tool run in a fresh process: ``python -m server.modeltools.worker TOOL ARGS RESULT``.

Reads the tool's arguments (JSON, absolute paths) from ARGS and writes ``{"ok": true, "result":
{...}}`` or ``{"ok": false, "error": "..."}`` to RESULT. Native crashes end the process with a
signal, which the runner reports. Only the tool's own module is imported, so a conversion does
not pay for onnxruntime. ``worker --standby`` waits for one job on stdin instead (see ``pool``).

The process ends with ``os._exit`` once the result is written and every buffer flushed: the
interpreter's teardown (unloading MNN, numpy, pydantic module by module) does nothing a run needs
and costs it a few hundred ms, a third of a small model's conversion.
"""

import importlib
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from server.modeltools.errors import ToolFailed
from server.modeltools.formats import BadModelFile
from server.modeltools.native import flush_all
from server.modeltools.progress import report
from server.modeltools.schemas import ARG_MODELS, TOOL_MODULES

# Read only when the runner passes it explicitly (never from the API): lets the test suite
# prove that crashes and hangs are contained.
TEST_FAULT_ENV = "MNNWB_WORKER_TEST_FAULT"
# what a standby worker writes to its stdout once its imports are done (see ``pool``)
READY = b"ready\n"


def _test_fault() -> None:
    fault = os.environ.get(TEST_FAULT_ENV)
    if fault == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif fault == "hang":
        # A grandchild too, so the test can see the whole process group go.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"test-fault pids {os.getpid()} {child.pid}", flush=True)
        while True:
            time.sleep(1)


def _run(tool: str, args_path: Path) -> dict[str, Any]:
    model = ARG_MODELS[tool]
    try:
        args = model.model_validate_json(args_path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ToolFailed(f"invalid arguments: {where}: {first['msg']}") from None
    module = importlib.import_module(TOOL_MODULES.get(tool, f"server.modeltools.{tool}"))
    report(0.0, "started")
    result = module.run(args)
    report(1.0, "done")
    return result


def _telemetry_free() -> None:
    # ``server.llm.guard`` may put modules of its own (marked SEALED) under that name.
    leaked = sorted(name for name, module in sys.modules.items()
                    if name.startswith("MNN.tools") and not getattr(module, "SEALED", False))
    if leaked:
        raise RuntimeError(f"telemetry modules were imported: {leaked}")


def standby() -> int:
    """Wait, with the common imports done, for one job line on stdin; then run it as ``main``.

    The job is ``{"tool", "cwd"}``: the run's folder holds ``args.json`` and gets the log.
    """
    import _tools  # noqa: F401  (the native tools, preloaded)
    import numpy  # noqa: F401  (every tool but convert uses it: 0.1 s of an evaluate run's start)

    importlib.import_module("server.modeltools.convert")
    # MNN's Python module and the session helpers: 0.1–0.25 s of an inspect run's start
    importlib.import_module("server.modeltools.tensors")
    try:
        os.write(1, READY)
    except OSError:
        pass  # handed its job before it was ready: no one reads the pipe any more
    line = sys.stdin.readline()
    if not line:
        return 0
    job = json.loads(line)
    os.chdir(job["cwd"])
    log = os.open("worker.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    return main([job["tool"], "args.json", "result.json"])


def main(argv: list[str]) -> int:
    if argv == ["--standby"]:
        return standby()
    if len(argv) != 3 or argv[0] not in ARG_MODELS:
        sys.stderr.write(f"usage: worker {{{'|'.join(ARG_MODELS)}}} ARGS.json RESULT.json\n")
        return 2
    tool, args_path, result_path = argv[0], Path(argv[1]), Path(argv[2])
    _test_fault()
    try:
        outcome = {"ok": True, "result": _run(tool, args_path)}
    except ToolFailed as exc:
        outcome = {"ok": False, "error": str(exc), "code": exc.code}
    except BadModelFile as exc:
        outcome = {"ok": False, "error": str(exc)}
    except Exception as exc:
        # An unforeseen failure (a library's own error, say): one line in the run, the whole
        # traceback in its log.
        traceback.print_exc()
        outcome = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000]}
    _telemetry_free()
    result_path.write_text(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    status = main(sys.argv[1:])
    flush_all()
    os._exit(status)
