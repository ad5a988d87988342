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

A search git gives up on is never an empty answer: PCRE refusing the pattern (``bad_regex``) or
giving up on a line (its match limit: ``regex_too_complex``) is a 422 with git's reason, and any
other failure of the last way to run it, or one after lines came out, a ``503 search_failed``.
"""

import asyncio
import contextlib
import os
import re
import shutil
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, Invalid, Unavailable

LINE_LIMIT = 16 * 1024 * 1024
READ_SIZE = 256 * 1024
GIT_OPTIONS = (
    "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false",
    "-c", "grep.column=false", "-c", "grep.fullName=false", "-c", "submodule.recurse=false",
)
GREP_OPTIONS = ("--exclude-standard", "--no-color", "--no-textconv", "--no-recurse-submodules")
NO_INDEX = ("--no-index",)
STDERR_KEPT = 4096
# git's words (grep.c) when PCRE gives up on a line, and when it refuses the pattern.
_PCRE_GAVE_UP = re.compile(r"pcre\w* failed with error code -?\d+: (.*)")
_PATTERN_REFUSED = "fatal: -e option, '"


@dataclass
class GitEnd:
    """How one ``git grep`` ended: its exit status (None: stopped here) and the end of stderr."""

    status: int | None = None
    stderr: bytes = b""

    def message(self) -> str:
        lines = self.stderr.decode(errors="replace").strip().splitlines() or [f"status {self.status}"]
        return lines[-1].removeprefix("fatal: ").removeprefix("error: ")

    def refusal(self) -> Invalid | None:
        """The pattern's fault, as git tells it."""
        text = self.stderr.decode(errors="replace")
        if gave_up := _PCRE_GAVE_UP.search(text):
            return Invalid(f"git grep gave up on the pattern: {gave_up[1]}", code=ErrorCode.REGEX_TOO_COMPLEX)
        if _PATTERN_REFUSED in text:  # -e option, '<pattern>': <PCRE's reason>
            reason = self.message().rsplit("': ", 1)[-1]
            return Invalid(f"git grep -P refuses the pattern: {reason}", code=ErrorCode.BAD_REGEX)
        return None


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MNNWB_"))}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C.UTF-8")
    return env


def _git() -> str:
    found = shutil.which("git")
    if found is None:
        raise Unavailable("search needs the git program on the server's PATH", code=ErrorCode.NO_GIT)
    return found


def walk_modes(root: str | Path) -> list[tuple[str, ...]]:
    """The ways to run the search, in the order to try them."""
    if Path(root, ".git").exists():
        return [("--untracked",), NO_INDEX]
    return [NO_INDEX]


async def grep_batches(root: str | Path, args: list[str]) -> AsyncGenerator[list[bytes]]:
    """The output lines of ``git grep <args>`` run in ``root``, in batches as they arrive (one
    read of the pipe each); the process ends with the loop."""
    modes = walk_modes(root)
    for mode in modes:
        end = GitEnd()
        found = False
        async for batch in _run(root, mode, args, end):
            found = True
            yield batch
        if end.status is None or end.status in (0, 1):  # 1: git ran and found nothing
            return
        failure: AppError | None = end.refusal()  # another way to run it would fail the same way
        if failure is None and (found or mode is modes[-1]):
            failure = Unavailable(f"git grep failed: {end.message()}", code=ErrorCode.SEARCH_FAILED)
        if failure is not None:
            raise failure


async def _run(
    root: str | Path, mode: tuple[str, ...], args: list[str], end: GitEnd,
) -> AsyncIterator[list[bytes]]:
    """One ``git grep`` process; ``end`` tells how it ended once it has."""
    work_tree = () if mode == NO_INDEX else ("--work-tree", os.path.abspath(root))
    process = await asyncio.create_subprocess_exec(
        _git(), *GIT_OPTIONS, *work_tree, "grep", *GREP_OPTIONS, *mode, *args,
        cwd=root, env=_environment(), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    # Read all along: warnings filling the stderr pipe would stall git.
    stderr = asyncio.create_task(_tail(process.stderr))
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
        end.status = await process.wait()
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # it may have ended meanwhile
                process.kill()
        while await process.stdout.read(READ_SIZE):
            pass  # to its end, so the pipe is closed
        end.stderr = await stderr
        await process.wait()


async def _tail(stream: asyncio.StreamReader) -> bytes:
    kept = b""
    while chunk := await stream.read(READ_SIZE):
        kept = (kept + chunk)[-STDERR_KEPT:]
    return kept
