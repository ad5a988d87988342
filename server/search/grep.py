"""Run ``git grep`` over a project's folder and read its output as it comes.

In a Git repository (a ``.git`` at the project's root) git searches the tracked files and, with
``--untracked --exclude-standard``, the untracked ones that no ``.gitignore`` excludes; anywhere
else, or when that run fails before it finds anything (a repository git will not open, such as
one owned by another user), ``--no-index --exclude-standard`` walks the folder with the same
rules. Both give the same answer.

Git runs with a neutral environment and options that a repository's own configuration cannot
override: no pager, no fsmonitor hook, no system or global configuration, no textconv filter, no
submodules, the work tree fixed to the project's folder (whatever ``core.worktree`` says), and
the ``grep.*`` settings that would change the output's shape (``grep.column``,
``grep.fullName``) pinned. So a project cannot make the search run a program, read outside its
folder or garble the answer.
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
GIT_OPTIONS = (
    "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false",
    "-c", "grep.column=false", "-c", "grep.fullName=false", "-c", "submodule.recurse=false",
)
GREP_OPTIONS = ("--exclude-standard", "--no-color", "--no-textconv", "--no-recurse-submodules")
NO_INDEX = ("--no-index",)


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MNNWB_"))}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C.UTF-8")
    return env


def _git() -> str:
    found = shutil.which("git")
    if found is None:
        raise Unavailable("search needs the git program on the server's PATH", code="no_git")
    return found


def walk_modes(root: str | Path) -> list[tuple[str, ...]]:
    """The ways to run the search, in the order to try them."""
    if Path(root, ".git").exists():
        return [("--untracked",), NO_INDEX]
    return [NO_INDEX]


async def grep_batches(root: str | Path, args: list[str]) -> AsyncIterator[list[bytes]]:
    """The output lines of ``git grep <args>`` run in ``root``, in batches as they arrive (one
    read of the pipe each); the process ends with the loop."""
    for mode in walk_modes(root):
        status: list[int] = []
        found = False
        async for batch in _run(root, mode, args, status):
            found = True
            yield batch
        if found or (status and status[0] <= 1):  # 1: git ran and found nothing
            return


async def _run(
    root: str | Path, mode: tuple[str, ...], args: list[str], status: list[int],
) -> AsyncIterator[list[bytes]]:
    """One ``git grep`` process; its exit status is appended to ``status`` when it ends."""
    work_tree = () if mode == NO_INDEX else ("--work-tree", os.path.abspath(root))
    process = await asyncio.create_subprocess_exec(
        _git(), *GIT_OPTIONS, *work_tree, "grep", *GREP_OPTIONS, *mode, *args,
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
        status.append(process.returncode if process.returncode is not None else -1)
