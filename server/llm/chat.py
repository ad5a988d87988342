"""Loaded models for the chat API: one ``chat_worker`` process per model in use, reused between
messages, several at once, ended after ``idle_s`` without a message or when the server stops.

A request is written, and its answer read, by the thread that serves the HTTP request: tokens go
from the model's pipe to the event hub with no further hand-over."""

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.core.errors import Invalid, Unavailable
from server.modeltools.runner import Limits, environment, kill_group, limit_address_space

MAX_PROCESSES = 4
LOAD_TIMEOUT_S = 120.0


@dataclass
class _Process:
    key: tuple[str, int, bool]
    proc: subprocess.Popen
    busy: bool = False
    last_used: float = field(default_factory=time.monotonic)

    def request(self, message: dict[str, Any], on_token: Callable[[str], None] | None) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise Unavailable("the model's process ended; see the server log", code="llm_crashed")
            reply = json.loads(line)
            if "token" in reply and on_token is not None:
                on_token(reply["token"])
            elif "done" in reply:
                return dict(reply["done"])
            elif "error" in reply:
                raise Invalid(reply["error"], code="llm_failed")

    def stop(self) -> None:
        """End the request in progress (the worker answers it with ``finish_reason: stopped``)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write('{"stop": true}\n')
            self.proc.stdin.flush()
        except (OSError, ValueError):
            return


def _stop(proc: subprocess.Popen) -> None:
    kill_group(proc)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


class ChatManager:
    def __init__(self, idle_s: float = 300.0, limits: Limits | None = None) -> None:
        self._idle_s, self._limits = idle_s, limits or Limits()
        self._processes: list[_Process] = []
        self._chats: dict[str, _Process] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._reap, name="llm-idle", daemon=True).start()

    def run(self, folder: Path, threads: int, message: dict[str, Any], embedding: bool = False,
            on_token: Callable[[str], None] | None = None, chat_id: str = "") -> dict[str, Any]:
        process = self._take((str(folder), threads, embedding))
        with self._lock:
            if chat_id:
                self._chats[chat_id] = process
        try:
            return process.request(message, on_token)
        except (Unavailable, OSError, ValueError):
            self._end(process)
            raise
        finally:
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

    def _take(self, key: tuple[str, int, bool]) -> _Process:
        with self._lock:
            for process in self._processes:
                if process.key == key and not process.busy and process.proc.poll() is None:
                    process.busy = True
                    return process
            if len(self._processes) >= MAX_PROCESSES:
                idle = [p for p in self._processes if not p.busy]
                if not idle:
                    raise Unavailable("every model process is busy; try again when a chat ends",
                                      code="llm_busy")
                self._processes.remove(oldest := min(idle, key=lambda p: p.last_used))
                _stop(oldest.proc)
            process = _Process(key, self._spawn(key), busy=True)
            self._processes.append(process)
        self._await_ready(process)
        return process

    def _spawn(self, key: tuple[str, int, bool]) -> subprocess.Popen:
        folder, threads, embedding = key
        argv = [sys.executable, "-P", "-m", "server.llm.chat_worker", folder, str(threads)]
        return subprocess.Popen(
            argv + (["embedding"] if embedding else []), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, encoding="utf-8", env=environment({}),
            start_new_session=True, preexec_fn=limit_address_space(self._limits.memory_mb),
        )

    def _await_ready(self, process: _Process) -> None:
        assert process.proc.stdout is not None
        watchdog = threading.Timer(LOAD_TIMEOUT_S, kill_group, [process.proc])
        watchdog.start()
        try:
            line = process.proc.stdout.readline()
        finally:
            watchdog.cancel()
        reply = json.loads(line) if line else {"error": "the model's process ended while loading"}
        if not reply.get("ready"):
            self._end(process)
            raise Invalid(reply.get("error", "the model did not load"),
                          code=reply.get("code", "llm_load_failed"))

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
