"""Every live terminal of the server: created by a socket, detached when it drops, reattached by
id within the keep time (a tab reload), ended when closed, expired, when its owner's access to it
is taken away, or when the server stops. Each user may have ``per_user`` terminals at a time.

A terminal is shared like a tmux session: every socket attached to it (the same person's second
tab of the project) sees its output and types into it; it expires only once the last detaches."""

import asyncio
import secrets
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict
from server.terminal.pty import PtyProcess
from server.users.connections import Connections, Held, Recheck

SCROLLBACK_CHARS = 200_000
HIGH_WATER = 256  # queued output chunks of up to 64 KB


@dataclass(frozen=True)
class Revoked:
    """Queued to a terminal's socket when its owner's access is taken away."""

    reason: str


# What a terminal's socket is sent: output, the exit code or ``Revoked``.
SinkItem = str | int | Revoked


@dataclass
class Terminal:
    id: str
    project_id: str
    owner: str
    pty: PtyProcess | None = None
    held: Held | None = None
    history: deque[str] = field(default_factory=deque)
    history_chars: int = 0
    sinks: list[asyncio.Queue[SinkItem]] = field(default_factory=list)
    expiry: asyncio.TimerHandle | None = None
    exit_code: int | None = None
    ended: bool = False

    def output(self, text: str) -> None:
        self.history.append(text)
        self.history_chars += len(text)
        while self.history_chars > SCROLLBACK_CHARS and len(self.history) > 1:
            self.history_chars -= len(self.history.popleft())
        for sink in self.sinks:
            sink.put_nowait(text)
        # A slow socket pauses the shell (its writes block) instead of queueing without end.
        if self.pty is not None and any(sink.qsize() > HIGH_WATER for sink in self.sinks):
            self.pty.pause()

    def tell(self, item: SinkItem) -> None:
        """Queue ``item`` (an exit code, a revocation) to every attached socket."""
        for sink in self.sinks:
            sink.put_nowait(item)

    def resume_reading(self) -> None:
        """Let the shell write again once no attached socket is behind."""
        if self.pty is not None and all(sink.qsize() <= HIGH_WATER for sink in self.sinks):
            self.pty.resume()


class TerminalManager:
    def __init__(self, keep_seconds: float, per_user: int, connections: Connections) -> None:
        self.keep_seconds = keep_seconds
        self.per_user = per_user
        self.connections = connections
        self._terminals: dict[str, Terminal] = {}
        self._closing: set[asyncio.Future[None]] = set()

    def find(self, terminal_id: str, project_id: str, owner: str) -> Terminal | None:
        """A running terminal of this project started by this caller (no one else attaches)."""
        found = self._terminals.get(terminal_id)
        if found and found.project_id == project_id and found.owner == owner and not found.ended:
            return found
        return None

    def create(self, project_id: str, owner: str, argv: list[str], cwd: Path, env: dict[str, str],
               cols: int, rows: int, scope_state: dict[str, Any], recheck: Recheck) -> Terminal:
        """Start a shell for ``owner``, held (``server/users/connections.py``) with the request's
        credential and ``recheck``, the check that admitted it."""
        if sum(t.owner == owner for t in self._terminals.values()) >= self.per_user:
            raise Conflict(f"at most {self.per_user} terminals per user; close one first",
                           code=ErrorCode.TERMINAL_LIMIT, limit=self.per_user)
        terminal = Terminal(id=secrets.token_urlsafe(12), project_id=project_id, owner=owner)
        terminal.pty = PtyProcess(argv, cwd, env, cols, rows, terminal.output,
                                  lambda code: self._exited(terminal, code))
        self._terminals[terminal.id] = terminal
        terminal.held = self.connections.hold(scope_state, "terminal", project_id, recheck)
        terminal.held.close_with(lambda reason: self.revoke(terminal, reason))
        return terminal

    def reattached(self, terminal: Terminal, scope_state: dict[str, Any]) -> None:
        """The terminal is held from now on with the credential that reattached it."""
        if terminal.held is not None and scope_state.get("credential") is not None:
            terminal.held.credential = scope_state["credential"]

    def revoke(self, terminal: Terminal, reason: str) -> None:
        """Its owner may no longer have it: the socket closes with 1008 and ``reason``, the shell
        and everything started in it end."""
        self._forget(terminal)
        terminal.ended = True
        terminal.tell(Revoked(reason))
        self.close_soon(terminal)

    def _exited(self, terminal: Terminal, code: int | None) -> None:
        terminal.ended, terminal.exit_code = True, code
        self._forget(terminal)
        terminal.tell(code if code is not None else -1)

    def _forget(self, terminal: Terminal) -> None:
        self._terminals.pop(terminal.id, None)
        if terminal.held is not None:
            self.connections.release(terminal.held)
        if terminal.expiry is not None:
            terminal.expiry.cancel()
            terminal.expiry = None

    def attach(self, terminal: Terminal) -> tuple[str, asyncio.Queue[SinkItem]]:
        """The scrollback so far and the queue of what follows, beside any other socket's."""
        if terminal.expiry is not None:
            terminal.expiry.cancel()
            terminal.expiry = None
        sink: asyncio.Queue[SinkItem] = asyncio.Queue()
        terminal.sinks.append(sink)
        if terminal.held is not None and terminal.held.ended is not None:  # revoked meanwhile
            sink.put_nowait(Revoked(terminal.held.ended))
        return "".join(terminal.history), sink

    def detach(self, terminal: Terminal, sink: asyncio.Queue[SinkItem]) -> None:
        """A socket dropped: once none is left, keep the shell running for ``keep_seconds``, then
        end it."""
        if sink not in terminal.sinks:
            return
        terminal.sinks.remove(sink)
        terminal.resume_reading()
        if terminal.sinks or terminal.ended:
            return
        terminal.expiry = asyncio.get_running_loop().call_later(self.keep_seconds, self._expire, terminal)

    def _expire(self, terminal: Terminal) -> None:
        terminal.expiry = None
        self.close_soon(terminal)

    def close_soon(self, terminal: Terminal) -> None:
        """End the terminal in a task of its own: a socket going away does not cut it short."""
        self._closing.add(task := asyncio.ensure_future(self.close(terminal)))
        task.add_done_callback(self._closing.discard)

    async def close(self, terminal: Terminal) -> None:
        self._forget(terminal)
        terminal.ended = True
        if terminal.pty is not None:
            await terminal.pty.terminate()

    async def close_all(self) -> None:
        for terminal in list(self._terminals.values()):
            self.close_soon(terminal)
        await asyncio.gather(*list(self._closing), return_exceptions=True)
