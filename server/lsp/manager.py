"""Every running language server of the server, one per project: started by the first
connection, kept while any is attached, ended ``keep_seconds`` after the last one leaves (a tab
reload reattaches to the same process), and all ended when the server stops."""

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from server.lsp.service import LanguageServerPlan
from server.lsp.shared import Link, SharedLanguageServer
from server.sandbox import Sandbox

STOP_GRACE_SECONDS = 2.0


class LanguageServers:
    def __init__(self, keep_seconds: float, sandbox: Sandbox) -> None:
        self.keep_seconds = keep_seconds
        self._sandbox = sandbox
        self._servers: dict[str, SharedLanguageServer] = {}
        self._starting = asyncio.Lock()
        self._stopping: set[asyncio.Task[None]] = set()

    async def attach(self, project_id: str, plan: LanguageServerPlan) -> tuple[SharedLanguageServer, Link]:
        async with self._starting:  # two tabs opening at once still share one process
            server = self._servers.get(project_id)
            if server is None or server.ended:
                process = await start(plan, self._sandbox)
                server = SharedLanguageServer(process, lambda ended: self._forget(project_id, ended))
                self._servers[project_id] = server
            return server, server.connect()

    def detach(self, project_id: str, server: SharedLanguageServer, link: Link) -> None:
        server.disconnect(link)
        if not server.links and not server.ended and server.expiry is None:
            server.expiry = asyncio.get_running_loop().call_later(
                self.keep_seconds, self._expire, project_id, server)

    def _expire(self, project_id: str, server: SharedLanguageServer) -> None:
        server.expiry = None
        if not server.links:
            self._forget(project_id, server)
            self._stop_later(server)

    def _forget(self, project_id: str, server: SharedLanguageServer) -> None:
        if self._servers.get(project_id) is server:
            del self._servers[project_id]

    def _stop_later(self, server: SharedLanguageServer) -> None:
        task = asyncio.create_task(stop(server))
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def close_all(self) -> None:
        for project_id, server in list(self._servers.items()):
            self._forget(project_id, server)
            if server.expiry is not None:
                server.expiry.cancel()
            self._stop_later(server)
        await asyncio.gather(*self._stopping, return_exceptions=True)


async def start(plan: LanguageServerPlan, sandbox: Sandbox) -> asyncio.subprocess.Process:
    """The language server in the sandbox: the project read-write (it may rename and format),
    its interpreter's environment read-only."""
    root = Path(plan.cwd)
    policy = sandbox.for_user_code(root, writable=(root,), interpreter=plan.interpreter)
    return await asyncio.create_subprocess_exec(
        *sandbox.wrap(plan.argv, policy), cwd=plan.cwd, env=plan.env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, start_new_session=True,
    )


async def stop(server: SharedLanguageServer) -> None:
    """End the process: the end of its input (a language server exits on it, even one that is
    still starting), then the stop signal to its group; it is killed only if it has not exited
    after a grace period. Its pipes are read to their end and closed either way.

    The end of input is what ends a server still starting: the sandbox's launcher ignores the
    signal, and the processes it starts after the signal was sent never get it."""
    process = server.process
    if process.stdin is not None:
        process.stdin.close()
    if process.returncode is None:  # its group: a sandbox's launcher ignores the signal itself
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), STOP_GRACE_SECONDS)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
    await server.wait_closed()
    if process.stdin is not None:
        with contextlib.suppress(ConnectionError):
            await process.stdin.wait_closed()
