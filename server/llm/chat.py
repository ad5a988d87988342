"""Loaded models for the chat API: one ``chat_worker`` process per model in use, reused between
messages, several at once, ended after ``idle_s`` without a message or when the server stops.

A chat is served on the event loop: the request is written to the model's process and its
replies read as the pipe becomes readable, so each batch of tokens goes from the pipe to the
event hub, and on to the tab sockets, with no thread in between. A new process is started, and
embeddings are asked, from a worker thread (both block)."""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid, Unavailable
from server.modeltools.runner import Limits, environment, kill_group, limit_address_space
from server.sandbox import Sandbox

MAX_PROCESSES = 4
LOAD_TIMEOUT_S = 120.0
PIPE_BUF = 4096  # a request this short is written from the event loop at once
ENDING = (Unavailable, OSError, ValueError)  # the process is ended after these


class _Lines:
    """Lines from the model's stdout, read with one ``os.read`` at a time."""

    def __init__(self, fd: int) -> None:
        self.fd, self._buffer, self._lines = fd, b"", deque[bytes]()

    def feed(self) -> bool:
        """Read what is there (blocks if nothing is); False at the end of the stream."""
        data = os.read(self.fd, 1 << 16)
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        self._lines.extend(lines)
        return bool(data)

    def take(self) -> Iterator[dict[str, Any]]:
        while self._lines:
            yield json.loads(self._lines.popleft())

    def next(self) -> dict[str, Any] | None:
        while not self._lines:
            if not self.feed():
                return None
        return dict(json.loads(self._lines.popleft()))


class _Answer:
    """Follows one request's replies: tokens to ``on_token``, then its summary or error."""

    def __init__(self, on_token: Callable[[str], None] | None) -> None:
        self._on_token = on_token
        self.result: dict[str, Any] | None = None

    def take(self, reply: dict[str, Any]) -> bool:
        """True once the request has ended."""
        if "token" in reply:
            if self._on_token is not None:
                self._on_token(reply["token"])
            return False
        if "error" in reply:
            raise Invalid(reply["error"], code=ErrorCode.LLM_FAILED)
        self.result = dict(reply["done"])
        return True


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _crashed() -> Unavailable:
    return Unavailable("the model's process ended; see the server log", code=ErrorCode.LLM_CRASHED)


@dataclass
class _Process:
    key: tuple[str, int, bool]
    proc: subprocess.Popen
    busy: bool = False
    last_used: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        assert self.proc.stdout is not None
        self.lines = _Lines(self.proc.stdout.fileno())

    def write(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        data = memoryview(line)
        while data:  # an unbuffered pipe may take a long line in parts
            data = data[self.proc.stdin.write(data) or 0 :]

    def request(self, message: dict[str, Any], on_token: Callable[[str], None] | None) -> dict[str, Any]:
        """The request's answer, read by the calling thread."""
        self.write(_line(message))
        answer = _Answer(on_token)
        while (reply := self.lines.next()) is not None:
            if answer.take(reply):
                return answer.result or {}
        raise _crashed()

    async def ask(self, message: dict[str, Any], on_token: Callable[[str], None] | None) -> dict[str, Any]:
        """The request's answer, read on the event loop as the pipe becomes readable."""
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[dict[str, Any]] = loop.create_future()
        answer = _Answer(on_token)

        def readable() -> None:
            try:
                alive = self.lines.feed()
                if any(answer.take(reply) for reply in self.lines.take()):
                    ended.set_result(answer.result or {})
                elif not alive:
                    ended.set_exception(_crashed())
            except (Invalid, OSError, ValueError) as exc:
                ended.set_exception(exc)
            if ended.done():
                loop.remove_reader(self.lines.fd)

        line = _line(message)
        loop.add_reader(self.lines.fd, readable)
        try:
            if len(line) <= PIPE_BUF:
                self.write(line)
            else:  # the model's process reads it as it comes; the loop must not wait for that
                await run_in_threadpool(self.write, line)
            return await ended
        finally:
            loop.remove_reader(self.lines.fd)

    def stop(self) -> None:
        """End the request in progress (the worker answers it with ``finish_reason: stopped``)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(b'{"stop": true}\n')
        except (OSError, ValueError):
            return


def _stop(proc: subprocess.Popen) -> None:
    kill_group(proc)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


class ChatManager:
    def __init__(self, sandbox: Sandbox, idle_s: float = 300.0,
                 limits: Limits | None = None) -> None:
        self._sandbox = sandbox
        self._idle_s, self._limits = idle_s, limits or Limits()
        self._processes: list[_Process] = []
        self._chats: dict[str, _Process] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._reap, name="llm-idle", daemon=True).start()

    def run(self, folder: Path, threads: int, message: dict[str, Any], embedding: bool = False,
            on_token: Callable[[str], None] | None = None, chat_id: str = "") -> dict[str, Any]:
        """Answer ``message`` from the calling thread."""
        process = self._take((str(folder), threads, embedding))
        with self._serving(process, chat_id):
            return process.request(message, on_token)

    async def chat(self, folder: Path, threads: int, message: dict[str, Any],
                   on_token: Callable[[str], None] | None = None, chat_id: str = "") -> dict[str, Any]:
        """Answer ``message`` on the event loop; a caller that leaves ends the model's process
        (it would go on answering)."""
        process = await self._take_async((str(folder), threads, False))
        with self._serving(process, chat_id, ending=(*ENDING, asyncio.CancelledError)):
            return await process.ask(message, on_token)

    async def _take_async(self, key: tuple[str, int, bool]) -> _Process:
        if process := self._idle(key):
            return process
        taking = asyncio.ensure_future(run_in_threadpool(self._take, key))
        try:
            return await asyncio.shield(taking)
        except asyncio.CancelledError:  # the caller left while the model loads: free it when loaded
            taking.add_done_callback(self._release_taken)
            raise

    def _release_taken(self, taking: asyncio.Future[_Process]) -> None:
        if not taking.cancelled() and taking.exception() is None:
            self._release(taking.result())

    @contextmanager
    def _serving(self, process: _Process, chat_id: str,
                 ending: tuple[type[BaseException], ...] = ENDING) -> Iterator[None]:
        with self._lock:
            if chat_id:
                self._chats[chat_id] = process
        try:
            yield
        except ending:
            self._end(process)
            raise
        finally:
            self._release(process, chat_id)

    def _release(self, process: _Process, chat_id: str = "") -> None:
        with self._lock:
            process.busy, process.last_used = False, time.monotonic()
            if self._chats.get(chat_id) is process:
                del self._chats[chat_id]

    def stop(self, chat_id: str) -> bool:
        """Stop the answer of ``chat_id``; False when no such answer is in progress."""
        with self._lock:
            process = self._chats.get(chat_id)
        if process is None:
            return False
        process.stop()
        return True

    def loaded(self) -> list[str]:
        with self._lock:
            return sorted({p.key[0] for p in self._processes})

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            processes, self._processes = self._processes, []
        for process in processes:
            _stop(process.proc)

    def _idle(self, key: tuple[str, int, bool]) -> _Process | None:
        """A loaded, idle process of ``key``, now taken."""
        with self._lock:
            for process in self._processes:
                if process.key == key and not process.busy and process.proc.poll() is None:
                    process.busy = True
                    return process
        return None

    def _take(self, key: tuple[str, int, bool]) -> _Process:
        if process := self._idle(key):
            return process
        with self._lock:
            if len(self._processes) >= MAX_PROCESSES:
                idle = [p for p in self._processes if not p.busy]
                if not idle:
                    raise Unavailable("every model process is busy; try again when a chat ends",
                                      code=ErrorCode.LLM_BUSY)
                self._processes.remove(oldest := min(idle, key=lambda p: p.last_used))
                _stop(oldest.proc)
            process = _Process(key, self._spawn(key), busy=True)
            self._processes.append(process)
        self._await_ready(process)
        return process

    def _spawn(self, key: tuple[str, int, bool]) -> subprocess.Popen:
        folder, threads, embedding = key
        argv = [sys.executable, "-P", "-m", "server.llm.chat_worker", folder, str(threads)]
        # The model's folder, read-only, and no network: a model file is untrusted input.
        policy = self._sandbox.for_tool(Path(folder), readable=(Path(folder),))
        argv += ["embedding"] if embedding else []
        return subprocess.Popen(
            self._sandbox.wrap(argv, policy), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, bufsize=0, env=environment({}),
            start_new_session=True, preexec_fn=limit_address_space(self._limits.memory_mb),
        )

    def _await_ready(self, process: _Process) -> None:
        watchdog = threading.Timer(LOAD_TIMEOUT_S, kill_group, [process.proc])
        watchdog.start()
        try:
            reply = process.lines.next() or {"error": "the model's process ended while loading"}
        finally:
            watchdog.cancel()
        if not reply.get("ready"):
            self._end(process)
            raise Invalid(reply.get("error", "the model did not load"),
                          code=reply.get("code", ErrorCode.LLM_LOAD_FAILED))

    def _end(self, process: _Process) -> None:
        with self._lock:
            if process in self._processes:
                self._processes.remove(process)
        _stop(process.proc)

    def _reap(self) -> None:
        while not self._closed.wait(min(self._idle_s / 4, 15.0)):
            now = time.monotonic()
            with self._lock:
                stale = [p for p in self._processes if not p.busy and now - p.last_used > self._idle_s]
            for process in stale:
                self._end(process)
