"""Which formatter the language server's plugin runs (server/lsp/formatting.py): the project's
environment's ruff, else its black, else the server's ruff; and the plan hands the plugin the
project's interpreter."""

import os
import stat
from pathlib import Path

import pytest

from server.api.services import services_of
from server.lsp import formatting
from server.lsp.textedits import apply_edits


def _tool(folder: Path, name: str, output: str) -> None:
    """A stand-in for a formatter: prints ``output`` and what it was asked, whatever it reads."""
    script = folder / name
    script.write_text(f"#!/bin/sh\ncat > /dev/null\necho '{output}'\necho \"# $*\"\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_the_project_environment_comes_first_ruff_before_black(tmp_path):
    bin_dir = tmp_path / "env" / "bin"
    bin_dir.mkdir(parents=True)
    interpreter = str(bin_dir / "python")
    _tool(bin_dir, "black", "from_black = 1")
    edits, tool = formatting.format_text("x=1\n", "a.py", str(tmp_path), interpreter)
    assert tool.label == "black (the project's)"
    assert apply_edits("x=1\n", edits)[0] == "from_black = 1\n# --quiet --stdin-filename a.py -\n"
    _tool(bin_dir, "ruff", "from_ruff = 1")
    selection = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}
    edits, tool = formatting.format_text("x=1\n", "a.py", str(tmp_path), interpreter, selection)
    assert tool.label == "ruff (the project's)"
    assert apply_edits("x=1\n", edits)[0] == "from_ruff = 1\n# format --range=1:1-1:4 --stdin-filename a.py\n"
    _tool(bin_dir, "isort", "from_isort = 1")
    os.unlink(bin_dir / "ruff")
    edits, tool = formatting.sort_imports("x=1\n", "a.py", str(tmp_path), interpreter)
    assert tool.label == "isort (the project's)"


def test_without_a_project_tool_the_server_s_ruff_formats(tmp_path):
    edits, tool = formatting.format_text("x=1\n", "a.py", str(tmp_path), str(tmp_path / "python"))
    assert tool.label == "ruff (the server's)"
    assert apply_edits("x=1\n", edits)[0] == "x = 1\n"
    with pytest.raises(formatting.ToolFailed, match=r"^ruff \(the server's\): error: Failed to parse"):
        formatting.format_text("def (:\n", "a.py", str(tmp_path), None)


def test_the_plan_names_the_project_interpreter_for_the_plugin(client, project):
    from server.lsp.service import plan_for

    plugins = plan_for(services_of(client.app).engine, "local", project["id"]).settings["pylsp"]["plugins"]
    assert plugins["mnnwb"] == {"interpreter": None}  # the server's own: nothing of the project's
    venv = Path(project["path"]) / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(os.path.realpath("/usr/bin/python3"))
    plugins = plan_for(services_of(client.app).engine, "local", project["id"]).settings["pylsp"]["plugins"]
    assert plugins["mnnwb"]["interpreter"] == plugins["jedi"]["environment"]
    assert plugins["mnnwb"]["interpreter"].endswith(".venv/bin/python")
