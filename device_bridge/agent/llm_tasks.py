"""MNN-LLM chats and benchmarks for a session, in a model process kept between requests.

The process is ``device_bridge.llm.worker`` (the one the workbench runs for chats on its own
machine), loaded with the session's exported folder; a request for another folder or thread
count replaces it, and closing the session ends it. One request at a time per session: its
tokens, progress and end go to the hub as ``llm.token``, ``llm.progress`` and ``llm.done``.
"""

import asyncio
import json
import os
import sys
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from device_bridge.agent.tools import PACKAGE_PARENT
from device_bridge.sync import UnsafePath, confined

Message = dict[str, Any]
STDERR_TAIL_LINES = 20


class ModelProcess:
    def __init__(self, proc: asyncio.subprocess.Process, key: tuple[str, int]) -> None:
        self.proc, self.key = proc, key
        self.stderr: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        assert proc.stderr is not None
        self._drain = asyncio.create_task(self._keep_stderr(proc.stderr))

    async def _keep_stderr(self, stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            self.stderr.append(raw.decode(errors="replace").rstrip())

    def write(self, message: Message) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")

    async def read(self) -> Message | None:
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        return json.loads(line) if line else None

    def crashed(self) -> str:
        tail = " | ".join(list(self.stderr)[-3:])
        return f"the model process ended (exit code {self.proc.returncode}){': ' + tail if tail else ''}"

    async def end(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()
        await self._drain


class LlmTasks:
    def __init__(self, sid: str, cwd: Path, send: Callable[[Message], None]) -> None:
        self.sid, self.cwd, self._send = sid, cwd, send
        self._model: ModelProcess | None = None
        self._current: str | None = None
        self._task: asyncio.Task[None] | None = None

    def _done(self, rid: str, ok: bool, result: Message | None = None, error: str | None = None,
              code: str | None = None) -> None:
        self._send({"type": "llm.done", "sid": self.sid, "rid": rid, "ok": ok, "code": code,
                    "error": error, "result": result or {}})

    def start(self, msg: Message) -> None:
        """Begin a chat or benchmark; it runs on while the connection takes other messages."""
        if self._current is not None:
            self._done(msg["rid"], False, error="another chat or benchmark is running on this "
                       "device for this project", code="llm_busy")
            return
        self._current = msg["rid"]
        self._task = asyncio.create_task(self._serve(msg))

    def stop(self, msg: Message) -> None:
        if self._model is not None and msg["rid"] == self._current:
            self._model.write({"stop": True})

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._model is not None:
            await self._model.end()
            self._model = None

    async def _serve(self, msg: Message) -> None:
        rid = msg["rid"]
        try:
            model = await self._load(msg["model"], msg["threads"])
            if model is not None:
                model.write(_request(msg))
                await self._follow(model, rid)
        except (OSError, ValueError) as exc:
            self._done(rid, False, error=f"{type(exc).__name__}: {exc}", code="llm_failed")
        finally:
            self._current = None

    async def _load(self, folder: str, threads: int) -> ModelProcess | None:
        try:
            path = str(confined(self.cwd, folder))
        except UnsafePath as exc:
            self._done(self._current or "", False, error=str(exc), code="unsafe_path")
            return None
        if self._model is not None and (self._model.key != (path, threads)
                                        or self._model.proc.returncode is not None):
            await self._model.end()
            self._model = None
        if self._model is None:
            model = ModelProcess(await _spawn(path, threads, self.cwd), (path, threads))
            ready = await model.read()
            if not ready or not ready.get("ready"):
                await model.end()
                reply = ready or {"error": model.crashed(), "code": "llm_crashed"}
                self._done(self._current or "", False, error=reply.get("error"),
                           code=reply.get("code", "llm_load_failed"))
                return None
            self._model = model
        return self._model

    async def _follow(self, model: ModelProcess, rid: str) -> None:
        while (reply := await model.read()) is not None:
            if "token" in reply:
                self._send({"type": "llm.token", "sid": self.sid, "rid": rid, "text": reply["token"]})
            elif "progress" in reply:
                self._send({"type": "llm.progress", "sid": self.sid, "rid": rid,
                            "fraction": reply["progress"], "stage": reply["stage"]})
            elif "done" in reply:
                self._done(rid, True, result=reply["done"])
                return
            elif "error" in reply:
                self._done(rid, False, error=reply["error"], code="llm_failed")
                return
        await model.proc.wait()
        self._done(rid, False, error=model.crashed(), code="llm_crashed")


def _request(msg: Message) -> Message:
    if msg["type"] == "llm.bench":
        return {"bench": {k: msg[k] for k in ("prompt_tokens", "gen_tokens", "repeats")}}
    return {k: msg[k] for k in ("messages", "max_new_tokens", "sampler")}


async def _spawn(folder: str, threads: int, cwd: Path) -> asyncio.subprocess.Process:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([PACKAGE_PARENT, os.environ.get(
        "PYTHONPATH", "")]).rstrip(os.pathsep)}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "device_bridge.llm.worker", folder, str(threads), cwd=cwd, env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True,
    )
