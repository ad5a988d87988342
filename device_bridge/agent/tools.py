"""Drives ``mnn_tasks`` child processes for a session: benchmarks, tensor watchpoints and
pipelines."""

import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import device_bridge
from device_bridge.sync import UnsafePath, confined
from device_bridge.wire import MAX_MESSAGE_BYTES

# marks our lines in a task's stdout, which MNN's native code writes to as well
MARK = "MNNWB_TASK "
PACKAGE_PARENT = str(Path(device_bridge.__file__).resolve().parents[1])


def say(text: str) -> None:
    """A line of the agent's log (its stderr)."""
    print(f"mnnwb-agent: {text}", file=sys.stderr, flush=True)


def pipeline_result(sid: str, rid: str, result: dict[str, Any]) -> dict[str, Any]:
    """A ``pipeline.result``; one too big for a message is refused by name, not cut."""
    message = {"type": "pipeline.result", "sid": sid, "rid": rid, **result}
    if len(json.dumps(message)) > MAX_MESSAGE_BYTES - 1024:
        return {"type": "pipeline.result", "sid": sid, "rid": rid, "ok": False, "code": "result_too_big",
                "error": f"the results exceed a message's {MAX_MESSAGE_BYTES // (1 << 20)} MiB: "
                         "run fewer inputs at a time"}
    return message


class MnnTask:
    """At most one task per session at a time; a watch pauses between hits for ``resume``."""

    def __init__(self, sid: str, cwd: Path, send: Callable[[dict[str, Any]], None]) -> None:
        self.sid = sid
        self.cwd = cwd
        self._send = send
        self._proc: asyncio.subprocess.Process | None = None
        self._rid: str | None = None  # the running pipeline's

    @property
    def busy(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    def _fail(self, job: dict[str, Any], error: str, code: str | None = None) -> None:
        named = {"code": f"pipeline_{code}"} if code and job["type"] == "pipeline.start" else {}
        self._result(job, {"ok": False, "error": error, **named})

    def _result(self, job: dict[str, Any], result: dict[str, Any]) -> None:
        if job["type"] == "bench.start":
            # a request of the workbench's own (``rid``) gets its result back under that name
            self._send({"type": "bench.result", "sid": self.sid, "rid": job.get("rid"), **result})
        elif job["type"] == "pipeline.start":
            self._send(pipeline_result(self.sid, job["rid"], result))
        else:
            self._send({"type": "watch.done", "sid": self.sid, **result})

    def _checked(self, job: dict[str, Any]) -> dict[str, Any]:
        """The job with its files confined to the session folder."""
        if job["type"] == "pipeline.start":
            return {**job, "pipeline": str(confined(self.cwd, job["pipeline"])),
                    "inputs": [str(confined(self.cwd, path)) for path in job["inputs"]]}
        return {**job, "model": str(confined(self.cwd, job["model"])),
                "inputs": self._inputs(job.get("inputs", {}))}

    async def start(self, job: dict[str, Any]) -> None:
        if self.busy:
            self._fail(job, "another benchmark, watch or pipeline is running in this session", "busy")
            return
        try:
            job = self._checked(job)
        except (UnsafePath, TypeError, AttributeError) as exc:
            self._fail(job, str(exc) or "bad inputs")
            return
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([PACKAGE_PARENT, os.environ.get(
            "PYTHONPATH", "")]).rstrip(os.pathsep)}
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "device_bridge.agent.mnn_tasks", cwd=self.cwd, env=env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True,
            limit=MAX_MESSAGE_BYTES,  # a pipeline's result is one line
        )
        self._rid = job.get("rid") if job["type"] == "pipeline.start" else None
        self._write(json.dumps(job))
        asyncio.create_task(self._follow(job, self._proc))

    def _inputs(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Input specs with their ``file``/``npy`` paths confined to the session folder (the
        result names them as given)."""
        checked = {}
        for name, spec in inputs.items():
            checked[name] = dict(spec)
            for key in ("file", "npy"):
                if spec.get(key):
                    confined(self.cwd, spec[key])
        return checked

    def _write(self, line: str) -> None:
        if self.busy and self._proc is not None and self._proc.stdin is not None:
            self._proc.stdin.write(line.encode() + b"\n")

    def resume(self) -> None:
        self._write("continue")

    def stop(self) -> None:
        self._write("stop")

    def stop_pipeline(self, rid: str) -> None:
        """``pipeline.stop``: the running pipeline ``rid`` ends after its current stage and
        answers with what it did; another's, or none running, is left alone."""
        if self._rid == rid:
            self._write("stop")

    async def _follow(self, job: dict[str, Any], proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        errors = asyncio.create_task(proc.stderr.read())
        result: dict[str, Any] | None = None
        async for raw in proc.stdout:
            line = raw.decode(errors="replace")
            if not line.startswith(MARK):
                continue
            payload = json.loads(line[len(MARK) :])
            if "hit" in payload:
                self._send({"type": "watch.hit", "sid": self.sid, **payload["hit"]})
            elif "progress" in payload:
                say(f"pipeline {job['rid']}: {payload['progress']}")
            else:
                result = payload["result"]
        code = await proc.wait()
        stderr = (await errors).decode(errors="replace").strip()[-500:]
        if result is None:
            self._fail(job, f"the MNN task crashed (exit code {code}): {stderr}", "crashed")
        else:
            stopped = (result.get("result") or {}).get("stopped")
            if stopped:
                say(f"pipeline {job['rid']}: stopped after {stopped['done']} of {stopped['given']} inputs")
            self._result(job, result)
