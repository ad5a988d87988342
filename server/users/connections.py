"""Every open websocket and running terminal of a team-mode user, so that access taken away is
taken at once (docs/team.md, "When access is taken away").

A socket or terminal is held with the credential it came in with, its project and ``recheck``,
its own admission check run again. When a service reports an ``AccessChange``
(``server/users/changes.py``), the user's holdings in that project (or in all of them) are
checked again and those refused are ended: sockets close with 1008 and the change's reason,
terminals stop. A device no longer shared ends its sessions in that user's projects that no one
else's right keeps, and the user's project sockets there. Every ``check_seconds`` the credentials
in use are looked up, so that a sign-out, a password change or a removal made by another process
(``mnnwb user``), or a session expiring, ends its sockets too.

Admission and ``hold`` run on the event loop with no ``await`` between them, as changes are
applied: a change committed during an admission is either seen by it or applied to the holding.
Local mode holds nothing: its one token cannot be taken back while the server runs.
"""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from server.core.errors import AppError
from server.users.changes import AccessChange
from server.users.sessions import Credential, live_credentials

# Runs the holding's admission check again; raises an AppError once it would be refused.
Recheck = Callable[[Session], object]
# (user id, device id) → the projects whose sessions on the device were ended
DeviceSessionsEnder = Callable[[str, str], Awaitable[set[str]]]
CLOSE_CODE = 1008
REASON_BYTES = 120  # a close frame holds at most 123 bytes of reason
SIGNED_OUT = "the sign-in has ended"

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Held:
    """One open socket (``kind`` "tab", "user", "lsp") or running terminal of one user."""

    kind: str
    credential: Credential | None
    project_id: str | None
    recheck: Recheck
    ended: str | None = None
    _closer: Callable[[str], None] | None = None

    @property
    def user_id(self) -> str | None:
        return self.credential.user_id if self.credential else None

    def close_with(self, closer: Callable[[str], None]) -> None:
        """How to end what is held: ``closer(reason)``, at once if it was ended already."""
        self._closer = closer
        if self.ended is not None:
            closer(self.ended)

    def end(self, reason: str) -> None:
        self.ended = reason
        if self._closer is not None:
            self._closer(reason)


class Connections:
    """The registry, the services' ``connections``; ``changed`` is the services' ``Notify``."""

    def __init__(self, engine: Engine, check_seconds: float) -> None:
        self._engine = engine
        self.check_seconds = check_seconds
        self.end_device_sessions: DeviceSessionsEnder | None = None
        self._held: set[Held] = set()
        self._loop = asyncio.get_running_loop()
        self._tasks: set[asyncio.Task[None]] = set()

    def hold(self, scope_state: dict[str, Any], kind: str, project_id: str | None,
             recheck: Recheck) -> Held:
        """Hold a socket or terminal admitted with the request's credential. Without one (local
        mode) the holding is not kept: nothing can end it."""
        held = Held(kind, scope_state.get("credential"), project_id, recheck)
        if held.credential is not None:
            self._held.add(held)
        return held

    @contextlib.contextmanager
    def holding(self, scope_state: dict[str, Any], kind: str, project_id: str | None,
                recheck: Recheck) -> Iterator[Held]:
        held = self.hold(scope_state, kind, project_id, recheck)
        try:
            yield held
        finally:
            self.release(held)

    def release(self, held: Held) -> None:
        self._held.discard(held)

    def held_by(self, user_id: str) -> list[Held]:
        return [held for held in self._held if held.user_id == user_id]

    def changed(self, change: AccessChange) -> None:
        """Apply a committed change; callable from any thread."""
        with contextlib.suppress(RuntimeError):  # the server has stopped: nothing is held
            self._loop.call_soon_threadsafe(self._spawn, self._apply(change))

    def start(self) -> None:
        self._spawn(self._check_credentials_forever())

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("taking access away failed", exc_info=task.exception())

    async def _apply(self, change: AccessChange) -> None:
        if change.device_id is not None:
            await self._device_unshared(change.user_id, change.device_id, change.reason)
            return
        affected = [held for held in self.held_by(change.user_id)
                    if change.project_id in (None, held.project_id)]
        if affected:
            self._end(await asyncio.to_thread(self._refused, affected), change.reason)

    async def _device_unshared(self, user_id: str, device_id: str, reason: str) -> None:
        if self.end_device_sessions is None:
            return
        projects = await self.end_device_sessions(user_id, device_id)
        self._end([held for held in self.held_by(user_id)
                   if held.kind == "tab" and held.project_id in projects], reason)

    def _refused(self, affected: list[Held]) -> list[Held]:
        with Session(self._engine) as session:
            alive = live_credentials(session, (h.credential for h in affected if h.credential))
            return [held for held in affected
                    if held.credential not in alive or not _admitted(session, held)]

    async def _check_credentials_forever(self) -> None:
        while True:
            await asyncio.sleep(self.check_seconds)
            held = list(self._held)
            if not held:
                continue
            try:
                alive = await asyncio.to_thread(self._live, {h.credential for h in held if h.credential})
            except Exception:  # a database hiccup: the next round tries again
                log.exception("checking the credentials of open sockets failed")
                continue
            self._end([h for h in held if h.credential not in alive], SIGNED_OUT)

    def _live(self, credentials: set[Credential]) -> set[Credential]:
        with Session(self._engine) as session:
            return live_credentials(session, credentials)

    def _end(self, ended: Iterable[Held], reason: str) -> None:
        reason = reason.encode()[:REASON_BYTES].decode(errors="ignore")
        for held in ended:
            if held in self._held:
                self._held.discard(held)
                held.end(reason)


def _admitted(session: Session, held: Held) -> bool:
    try:
        held.recheck(session)
    except AppError:
        return False
    return True
