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


async def grep_lines(root: str | Path, args: list[str]) -> AsyncIterator[bytes]:
    """Each output line of ``git grep <args>`` run in ``root``; the process ends with the loop."""
    process = await asyncio.create_subprocess_exec(
        _git(), *GIT_OPTIONS, "grep", "--no-index", "--exclude-standard", "--no-color", *args,
        cwd=root, env=_environment(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=LINE_LIMIT,
    )
    assert process.stdout is not None
    try:
        while line := await process.stdout.readline():
            yield line
    except ValueError:
        return  # a line longer than LINE_LIMIT (minified data): the search ends there
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # it may have ended meanwhile
                process.kill()
        await process.communicate()  # reads the pipe to its end, so it is closed
