"""Formatting and sorting imports with the project's own tools, else the server's (docs/ide.md).

Runs inside the language server's process (sandboxed, in the project folder). The formatter is
the first of: ``ruff`` in the project's environment, ``black`` there, the server's ``ruff``. Imports
are sorted by the project's ``ruff`` (its ``I`` rules), else its ``isort``, else the server's
``ruff``. Each reads its settings from the project (``pyproject.toml``, ``ruff.toml``, …) as it
would on the command line. The text goes in on standard input and comes back on standard output:
no file is written.
"""

import importlib.util
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from server.lsp.textedits import Edit, diff_edits, index_in_line

TIMEOUT_SECONDS = 30.0


class ToolFailed(Exception):
    """The tool refused the text (a syntax error, most often) or could not run; the message says
    which tool and why."""


@dataclass(frozen=True)
class Tool:
    name: str
    argv: list[str]
    # "project" or "server": whose tool it is
    origin: str

    @property
    def label(self) -> str:
        return f"{self.name} ({'the project' if self.origin == 'project' else 'the server'}'s)"


def _project_tool(interpreter: str | None, name: str) -> list[str] | None:
    if not interpreter:
        return None
    program = Path(interpreter).parent / name
    return [str(program)] if program.is_file() else None


def _server_ruff() -> list[str] | None:
    return [sys.executable, "-P", "-m", "ruff"] if importlib.util.find_spec("ruff") else None


def formatter(interpreter: str | None) -> Tool:
    if argv := _project_tool(interpreter, "ruff"):
        return Tool("ruff", argv, "project")
    if argv := _project_tool(interpreter, "black"):
        return Tool("black", argv, "project")
    if argv := _server_ruff():
        return Tool("ruff", argv, "server")
    raise ToolFailed("no formatter: neither the project's environment nor the server has ruff or black")


def import_sorter(interpreter: str | None) -> Tool:
    if argv := _project_tool(interpreter, "ruff"):
        return Tool("ruff", argv, "project")
    if argv := _project_tool(interpreter, "isort"):
        return Tool("isort", argv, "project")
    if argv := _server_ruff():
        return Tool("ruff", argv, "server")
    raise ToolFailed("nothing sorts imports: neither the project's environment nor the server has ruff "
                     "or isort")


def _range_arguments(tool: Tool, text: str, selection: dict) -> list[str]:
    """The formatter's option for formatting only the lines (ruff: and columns) of ``selection``."""
    lines = text.splitlines()
    start, end = selection["start"], selection["end"]
    if tool.name == "black":
        return [f"--line-ranges={start['line'] + 1}-{max(end['line'] + 1, start['line'] + 1)}"]

    def column(position: dict) -> int:
        line = lines[position["line"]] if position["line"] < len(lines) else ""
        return index_in_line(line, position["character"]) + 1

    return [f"--range={start['line'] + 1}:{column(start)}-{end['line'] + 1}:{column(end)}"]


def _run(tool: Tool, arguments: list[str], text: str, cwd: str) -> str:
    try:
        done = subprocess.run([*tool.argv, *arguments], input=text.encode(), capture_output=True,
                              cwd=cwd, timeout=TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ToolFailed(f"{tool.label} took longer than {TIMEOUT_SECONDS:.0f} s") from exc
    except OSError as exc:
        raise ToolFailed(f"{tool.label} did not start: {exc.strerror or exc}") from exc
    if done.returncode != 0:
        lines = [line for line in done.stderr.decode(errors="replace").splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else f"exit code {done.returncode}"
        raise ToolFailed(f"{tool.label}: {reason}")
    return done.stdout.decode()


def format_text(text: str, path: str, cwd: str, interpreter: str | None,
                selection: dict | None = None) -> tuple[list[Edit], Tool]:
    """The edits that format ``text`` (the file ``path``), or only the lines of ``selection``."""
    tool = formatter(interpreter)
    extra = _range_arguments(tool, text, selection) if selection else []
    if tool.name == "black":
        arguments = ["--quiet", *extra, "--stdin-filename", path, "-"]
    else:
        arguments = ["format", *extra, "--stdin-filename", path]
    return diff_edits(text, _run(tool, arguments, text, cwd)), tool


def sort_imports(text: str, path: str, cwd: str, interpreter: str | None) -> tuple[list[Edit], Tool]:
    tool = import_sorter(interpreter)
    if tool.name == "isort":
        arguments = ["--quiet", "--filename", path, "-"]
    else:
        arguments = ["check", "--select", "I", "--fix-only", "--exit-zero", "--no-cache", "--quiet",
                     "--stdin-filename", path]
    return diff_edits(text, _run(tool, arguments, text, cwd)), tool
