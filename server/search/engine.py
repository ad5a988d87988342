"""The server's side of the matching worker (``server/search/worker.py``): start it, feed it,
read its answers, and turn the way it ended into an answer for the client.

The server process itself only moves bytes between pipes, so a pattern that backtracks for ever
costs the worker its CPU budget and the client a ``422 regex_too_slow``, while every other
request is answered as usual.
"""

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any, Literal

import server
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Invalid, Unavailable
from server.search.matching import Query

# The worker's CPU time: this much, plus a second for every BYTES_PER_SECOND it reads. A fair
# pattern goes many times faster; one that backtracks catastrophically is ended within a second.
CPU_SECONDS = 1.0
BYTES_PER_SECOND = 10 * 1024 * 1024
READ_SIZE = 256 * 1024
REPLY_LIMIT = 1 << 30  # one reply carries a whole file's new text
# -I -S: no environment variables, user site or site-packages; the worker needs only the
# standard library and two modules of this package, found from the folder holding ``server``.
_BOOT = "import sys; sys.path.append(sys.argv[1]); from server.search.worker import main; main()"
_PACKAGE_PARENT = str(Path(server.__file__).resolve().parent.parent)

Mode = Literal["search", "preview", "apply"]


class Refused(Invalid):
    """The replacement cannot be made in one file (say, ``$3`` for a pattern with two groups)."""


def too_slow() -> Invalid:
    return Invalid(
        f"matching the pattern took too long: it may use {CPU_SECONDS:g} s of CPU time, plus 1 s for "
        f"every {BYTES_PER_SECOND // 2**20} MB of the files' lines it reads. A regular expression that "
        "nests repetitions, like (a+)+, can backtrack for ever on a long line", code=ErrorCode.REGEX_TOO_SLOW)


class MatchWorker:
    """One worker process, for one search or replace."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        assert process.stdin is not None and process.stdout is not None
        self.stdin, self.stdout = process.stdin, process.stdout

    @classmethod
    @contextlib.asynccontextmanager
    async def started(cls, query: Query, mode: Mode, *, limit: int = 0,
                      replacement: str = "") -> AsyncIterator["MatchWorker"]:
        """A worker for the job, ended when the block is left."""
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-S", "-c", _BOOT, _PACKAGE_PARENT, limit=REPLY_LIMIT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        worker = cls(process)
        try:
            job = {"query": list(query), "mode": mode, "limit": limit, "replacement": replacement,
                   "cpu_seconds": CPU_SECONDS, "bytes_per_second": BYTES_PER_SECOND}
            await worker.send(json.dumps(job).encode() + b"\n")
            yield worker
        finally:
            await worker.stop()

    async def send(self, data: bytes) -> None:
        try:
            self.stdin.write(data)
            await self.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise await self.failure() from None

    async def failure(self) -> AppError:
        """Why the worker ended early (it has, or is about to)."""
        status = await self.process.wait()
        if status == -signal.SIGPROF:
            return too_slow()
        return Unavailable(f"the matching process ended unexpectedly (status {status})",
                           code=ErrorCode.SEARCH_FAILED)

    async def substitute(self, text: str) -> dict[str, Any]:
        """``{"count", "changes"}`` (and the new ``text`` in an ``apply`` job) for one file."""
        await self.send(json.dumps(text).encode() + b"\n")
        line = await self.stdout.readline()
        if not line:
            raise await self.failure()
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            detail, code = answer["error"]
            raise Refused(detail, code=code)
        return answer

    async def search(self, batches: AsyncIterator[list[bytes]], limit: int) -> AsyncGenerator[list[bytes]]:
        """``SearchMatch`` JSON lines for ``git grep``'s lines, as the worker finds them; at most
        ``limit`` in all. Git's failures and the worker's end are raised after its last lines."""
        feeding = asyncio.create_task(self._feed(batches))
        count = 0
        try:
            async for lines in self._lines():
                count += len(lines)
                yield lines
            if await self.process.wait() != 0:
                raise await self.failure()
            if count < limit:  # the worker read all git had, and git's end tells how that went
                await feeding
        finally:
            feeding.cancel()
            with contextlib.suppress(asyncio.CancelledError, AppError, OSError):
                await feeding

    async def _feed(self, batches: AsyncIterator[list[bytes]]) -> None:
        try:
            async for batch in batches:
                await self.send(b"\n".join(batch) + b"\n")
        finally:
            self.stdin.close()

    async def _lines(self) -> AsyncIterator[list[bytes]]:
        pending = b""
        while chunk := await self.stdout.read(READ_SIZE):
            *lines, pending = (pending + chunk).split(b"\n")
            if lines:
                yield lines

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # it may have ended meanwhile
                self.process.kill()
        self.stdin.close()
        await self.process.communicate()
