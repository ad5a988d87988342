"""One program run in a session: its own process group, streamed output, stdin, perf, debug."""

import asyncio
import codecs
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

from device_bridge.agent.dap import DapRelay, free_port
from device_bridge.agent.perf import TreeSampler

PERF_PERIOD = 0.1
STOP_GRACE = 3.0
PIPE_DRAIN_TIMEOUT = 2.0
READ_SIZE = 64 * 1024

Send = Callable[[dict[str, Any]], None]


def command_line(argv: list[str], debug: bool, port: int) -> list[str]:
    """The device's Python runs ``argv`` (a script or ``-m module`` and its arguments)."""
    if not debug:
        return [sys.executable, "-u", *argv]
    listen = ["--listen", f"127.0.0.1:{port}", "--wait-for-client"]
    return [sys.executable, "-u", "-m", "debugpy", *listen, *argv]


class Run:
    def __init__(self, sid: str, cwd: Path, send: Send) -> None:
        self.sid = sid
        self.cwd = cwd
        self._send = send
        self._proc: asyncio.subprocess.Process | None = None
        self._dap: DapRelay | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.done = asyncio.Event()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.returncode is None

    def _log(self, stream: str, text: str) -> None:
        self._send({"type": "log", "sid": self.sid, "stream": stream, "text": text})

    async def start(self, argv: list[str], env: dict[str, str], debug: bool) -> None:
        port = free_port() if debug else 0
        self._proc = await asyncio.create_subprocess_exec(
            *command_line(argv, debug, port),
            cwd=self.cwd,
            env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        self._send({"type": "run.started", "sid": self.sid, "pid": self._proc.pid,
                    "cwd": str(self.cwd), "debug": debug})
        readers = [self._pump(self._proc.stdout, "stdout"), self._pump(self._proc.stderr, "stderr")]
        self._tasks = [asyncio.create_task(coro) for coro in readers]
        if debug:
            relay = DapRelay(port, lambda m: self._send({"type": "dap", "sid": self.sid, "msg": m}))
            self._dap = relay
            self._tasks.append(asyncio.create_task(self._dap.run(lambda: self.running)))
        asyncio.create_task(self._sample())
        asyncio.create_task(self._wait())

    async def _pump(self, stream: asyncio.StreamReader | None, name: str) -> None:
        assert stream is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while chunk := await stream.read(READ_SIZE):
            text = decoder.decode(chunk)
            if text:
                self._log(name, text)

    async def _sample(self) -> None:
        assert self._proc is not None
        try:
            sampler = TreeSampler(self._proc.pid)
        except psutil.Error:
            return
        loop = asyncio.get_running_loop()
        tick = loop.time()
        while self.running:
            # a fixed cadence, so a slow sample does not lower the rate
            tick = max(tick + PERF_PERIOD, loop.time())
            await asyncio.sleep(tick - loop.time())
            sample = sampler.sample()
            if sample is None or not self.running:
                return
            cpu, rss, threads = sample
            self._send({"type": "perf", "sid": self.sid, "t": time.time(), "cpu": cpu,
                        "rss": rss, "threads": threads})

    async def _wait(self) -> None:
        assert self._proc is not None
        code = await self._proc.wait()
        # a grandchild holding the pipes open must not hold back the exit report forever
        await asyncio.wait(self._tasks[:2], timeout=PIPE_DRAIN_TIMEOUT)
        if self._dap is not None:
            self._dap.close()
        self._send({"type": "run.exit", "sid": self.sid, "code": code if code >= 0 else None,
                    "signal": -code if code < 0 else None})
        self.done.set()

    def dap(self, msg: dict[str, Any]) -> None:
        if self._dap is None:
            self._log("system", "not debugging: DAP message dropped\n")
            return
        self._dap.send(msg)

    async def stdin(self, text: str, eof: bool) -> None:
        if not self.running or self._proc is None or self._proc.stdin is None:
            return
        try:
            self._proc.stdin.write(text.encode())
            await self._proc.stdin.drain()
            if eof:
                self._proc.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            return

    async def stop(self) -> None:
        """SIGTERM the whole process group, SIGKILL whatever is left after a grace period."""
        if not self.running or self._proc is None:
            return
        kill_tree(self._proc.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(self.done.wait(), STOP_GRACE)
        except TimeoutError:
            kill_tree(self._proc.pid, signal.SIGKILL)
            await self.done.wait()


def kill_tree(pid: int, sig: int) -> None:
    if hasattr(os, "killpg"):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        return
    try:
        root = psutil.Process(pid)
        for proc in [*root.children(recursive=True), root]:
            proc.send_signal(sig)
    except psutil.Error:
        return
