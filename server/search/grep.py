"""Run ``git grep`` over a project's folder and read its output as it comes.

``--no-index --exclude-standard`` walks the working folder whether or not it is a Git repository,
honouring ``.gitignore`` files. Git runs with a neutral environment: no pager, no fsmonitor hook,
no system or global configuration, so a project cannot make the search run a program.
"""

import asyncio
import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

from server.core.errors import Unavailable

LINE_LIMIT = 16 * 1024 * 1024
READ_SIZE = 256 * 1024
GIT_OPTIONS = ("--no-pager", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false")


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MNNWB_"))}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C.UTF-8")
    return env


def _git() -> str:
    found = shutil.which("git")
    if found is None:
        raise Unavailable("search needs the git program on the server's PATH", code="no_git")
    return found


async def grep_batches(root: str | Path, args: list[str]) -> AsyncIterator[list[bytes]]:
    """The output lines of ``git grep <args>`` run in ``root``, in batches as they arrive (one
    read of the pipe each); the process ends with the loop."""
    process = await asyncio.create_subprocess_exec(
        _git(), *GIT_OPTIONS, "grep", "--no-index", "--exclude-standard", "--no-color", *args,
        cwd=root, env=_environment(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    assert process.stdout is not None
    pending = b""
    try:
        while chunk := await process.stdout.read(READ_SIZE):
            *lines, pending = (pending + chunk).split(b"\n")
            if len(pending) > LINE_LIMIT:
                return  # a line that long is data, not text: the search ends there
            if lines:
                yield lines
        if pending:
            yield [pending]
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # it may have ended meanwhile
                process.kill()
        await process.communicate()  # reads the pipe to its end, so it is closed
