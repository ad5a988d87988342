"""A hub served by the ``websockets`` library in a background thread, and real agent processes.

Tests stay synchronous: they call into the hub's loop with ``HubServer.call`` and wait on events
the hub published with ``Recorder.wait``, polling with a deadline.
"""

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, serve

from device_bridge import protocol as p
from device_bridge.hub import DeviceHub
from device_bridge.links import Identity, Limits
from device_bridge.tab_events import TabEvent
from device_bridge.transport import WebsocketsTransport
from tests.waiting import SCALE

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Event:
    project: str
    channel: str
    type: str
    data: dict[str, Any]


class Recorder:
    """An event sink that keeps every event emitted (as the tabs get it), for tests to wait on."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._cond = threading.Condition()

    def emit(self, project_id: str, event: TabEvent) -> int:
        with self._cond:
            self.events.append(Event(project_id, event.CHANNEL, event.TYPE, event.payload()))
            self._cond.notify_all()
            return len(self.events)

    def wait(self, match: Callable[[Event], bool], timeout: float = 20.0) -> Event:
        deadline = time.monotonic() + timeout * SCALE
        with self._cond:
            while True:
                for event in self.events:
                    if match(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    tail = [(e.channel, e.type, e.data) for e in self.events[-10:]]
                    raise AssertionError(f"no matching event in {timeout} s; last: {tail}")
                self._cond.wait(left)

    def select(self, match: Callable[[Event], bool]) -> list[Event]:
        with self._cond:
            return [e for e in self.events if match(e)]

    def output(self, sid: str) -> str:
        return "".join(
            e.data["text"] for e in self.select(lambda e: e.type == "log" and e.data["sid"] == sid)
        )


class TokenBook:
    """Device tokens, and one-time pairing codes that are swapped for a device token."""

    def __init__(self) -> None:
        self.tokens: dict[str, Identity] = {}
        self.codes: dict[str, Identity] = {}

    async def verify(self, hello: p.Hello) -> Identity | None:
        if hello.token in self.codes:
            identity = self.codes.pop(hello.token)
            token = f"device-token-{identity.device_id}"
            self.tokens[token] = Identity(identity.device_id, identity.name)
            return Identity(identity.device_id, identity.name, token=token)
        return self.tokens.get(hello.token)


class HubServer:
    def __init__(self, limits: Limits | None = None) -> None:
        self.recorder = Recorder()
        self.book = TokenBook()
        self.loop = asyncio.new_event_loop()
        self.hub = DeviceHub(self.recorder, self.book.verify, limits)
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(
            target=self.loop.run_until_complete, args=(self._main(),), daemon=True
        )
        self._thread.start()
        assert self._ready.wait(10)

    async def _handler(self, ws: ServerConnection) -> None:
        await self.hub.serve(WebsocketsTransport(ws))

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        async with serve(self._handler, "127.0.0.1", 0, max_size=None, close_timeout=2) as server:
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        assert self._stop is not None
        self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
        self.loop.close()




class AgentProcess:
    """``python -m device_bridge.agent`` as a separate process (in its own process group)."""

    def __init__(self, server_url: str, home: Path, code: str | None, name: str) -> None:
        argv = [
            sys.executable,
            "-m",
            "device_bridge.agent",
            "--server",
            server_url,
            "--home",
            str(home),
            "--name",
            name,
        ]
        if code is not None:
            home.mkdir(parents=True, exist_ok=True)
            token_file = home / "pairing-code"
            token_file.write_text(code + "\n")
            argv += ["--token-file", str(token_file)]
        self._start(argv, home, REPO, os.environ.copy())

    @classmethod
    def from_shell(cls, command: str, home: Path) -> "AgentProcess":
        """Run a command line exactly as a person would paste it into a shell on the device."""
        agent = cls.__new__(cls)
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "PYTHONPATH": str(REPO),
            "MNNWB_AGENT_HOME": str(home),
        }
        agent._start(["bash", "-c", command], home, home, env)
        return agent

    def _start(self, argv: list[str], home: Path, cwd: Path, env: dict[str, str]) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.log_path = home / "agent.log"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._log.close()
