"""Search across files (streamed NDJSON, .gitignore, binaries, cap) and replace with ETags."""

import json
import subprocess
from pathlib import Path

import pytest

from server.search import service
from server.search.models import SearchEnd, SearchMatch


def _search(client, project, **params) -> list[dict]:
    response = client.get(f"/api/projects/{project['id']}/search", params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in response.text.splitlines()]
    # Every line is exactly the documented model, nothing more or less.
    for line in lines:
        model = SearchEnd if line["kind"] == "end" else SearchMatch
        assert model.model_validate(line).model_dump() == line
    return lines


@pytest.fixture
def tree(project) -> Path:
    root = Path(project["path"])
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("import os\nvalue = os.getcwd()  # Os here\n")
    (root / "notes.md").write_text("héllo: os and OS\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "skip.py").write_text("import os\n")
    (root / ".gitignore").write_text("ignored/\n")
    (root / "blob.bin").write_bytes(b"\x00\x01os\x00")
    return root


def test_matches_stream_with_columns_and_respect_gitignore_and_binaries(client, project, tree):
    lines = _search(client, project, q="os")
    end = lines.pop()
    assert end == {"kind": "end", "count": len(lines), "truncated": False}
    found = {(m["path"], m["line"], m["column"]) for m in lines}
    assert ("src/pkg/mod.py", 1, 8) in found
    assert ("src/pkg/mod.py", 2, 9) in found
    # Columns count characters: "héllo: " is 7 characters but 8 bytes.
    assert ("notes.md", 1, 8) in found
    assert not any(m["path"].startswith("ignored/") or m["path"] == "blob.bin" for m in lines)
    first = next(m for m in lines if m["path"] == "notes.md")
    start = first["column"] - 1 - first["preview_start"]
    assert first["preview"][start : start + first["length"]] == "os"


def test_case_word_regex_and_glob(client, project, tree):
    exact = _search(client, project, q="OS", case="true")[:-1]
    assert [(m["path"], m["column"]) for m in exact] == [("notes.md", 15)]
    words = _search(client, project, q="o", word="true")[:-1]
    assert words == []
    regex = _search(client, project, q=r"os\.\w+\(", regex="true")[:-1]
    assert [(m["path"], m["line"], m["length"]) for m in regex] == [("src/pkg/mod.py", 2, 10)]
    only_py = {m["path"] for m in _search(client, project, q="os", glob="*.py")[:-1]}
    assert "src/pkg/mod.py" in only_py and all(p.endswith(".py") for p in only_py)
    only_src = _search(client, project, q="os", glob="src/**, !**/*.md")[:-1]
    assert {m["path"] for m in only_src} == {"src/pkg/mod.py"}


def test_a_bad_regex_is_a_422_before_the_stream(client, project, tree):
    response = client.get(f"/api/projects/{project['id']}/search", params={"q": "(", "regex": "true"})
    assert response.status_code == 422
    assert response.json()["code"] == "bad_regex"


def test_results_are_capped(client, project, monkeypatch):
    monkeypatch.setattr(service, "MAX_MATCHES", 5)
    Path(project["path"], "many.txt").write_text("hit\n" * 50)
    lines = _search(client, project, q="hit")
    assert len(lines) == 6 and lines[-1] == {"kind": "end", "count": 5, "truncated": True}


def test_replace_previews_then_applies_only_unchanged_files(client, project, tree):
    base = f"/api/projects/{project['id']}/search/replace"
    query = {"q": r"os\.(\w+)", "regex": True, "case": True, "replacement": "path.$1", "glob": "src/**"}
    preview = client.post(f"{base}/preview", json=query)
    assert preview.status_code == 200, preview.text
    (only,) = preview.json()["files"]
    assert only["path"] == "src/pkg/mod.py"
    assert only["changes"] == [
        {"line": 2, "before": "value = os.getcwd()  # Os here", "after": "value = path.getcwd()  # Os here"}
    ]
    stale = dict(query, q="os", regex=False, case=False, replacement="OS",
                 files=[{"path": "notes.md", "etag": "0" * 32}, {"path": only["path"], "etag": only["etag"]}])
    applied = client.post(base, json=stale)
    assert applied.status_code == 200, applied.text
    body = applied.json()
    assert [s["path"] for s in body["skipped"]] == ["notes.md"] and body["skipped"][0]["code"] == "changed"
    assert [(r["path"], r["count"]) for r in body["replaced"]] == [("src/pkg/mod.py", 3)]
    assert (tree / "src/pkg/mod.py").read_text() == "import OS\nvalue = OS.getcwd()  # OS here\n"
    assert (tree / "notes.md").read_text() == "héllo: os and OS\n"


def test_replace_keeps_line_endings(client, project):
    path = Path(project["path"], "crlf.txt")
    path.write_bytes(b"a x\r\nb x\r\n")
    base = f"/api/projects/{project['id']}/search/replace"
    asked = {"q": "x", "replacement": "y", "glob": "crlf.txt"}
    (preview,) = client.post(f"{base}/preview", json=asked).json()["files"]
    applied = client.post(base, json={"q": "x", "replacement": "y",
                                      "files": [{"path": "crlf.txt", "etag": preview["etag"]}]})
    assert applied.json()["replaced"][0]["count"] == 2
    assert path.read_bytes() == b"a y\r\nb y\r\n"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
                   cwd=root, check=True, capture_output=True)


def test_a_repository_is_searched_through_its_index_and_its_config_cannot_change_the_search(
        client, project, tree, tmp_path):
    _git(tree, "init", "-q")
    _git(tree, "add", "src", "notes.md", ".gitignore")
    _git(tree, "commit", "-q", "-m", "files")
    (tree / "new.py").write_text("import os  # untracked\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("import os\n")
    marker = tmp_path / "ran"
    program = tmp_path / "program.sh"
    program.write_text(f"#!/bin/sh\ntouch {marker}\ncat \"$1\"\n")
    program.chmod(0o755)
    # Settings that would change the output's shape, the folder searched, or run a program.
    for key, value in [("grep.column", "true"), ("grep.fullName", "true"), ("submodule.recurse", "true"),
                       ("core.worktree", str(outside)), ("core.fsmonitor", str(program)),
                       ("diff.conv.textconv", str(program))]:
        _git(tree, "config", key, value)
    (tree / ".gitattributes").write_text("*.py diff=conv\n")
    found = {(m["path"], m["line"], m["column"]) for m in _search(client, project, q="os")[:-1]}
    assert {("src/pkg/mod.py", 1, 8), ("notes.md", 1, 8), ("new.py", 1, 8)} <= found
    assert not any(path.startswith("ignored/") or path in ("blob.bin", "secret.py") for path, _, _ in found)
    preview = client.post(f"/api/projects/{project['id']}/search/replace/preview",
                          json={"q": "import os", "case": True, "replacement": "import sys"})
    previewed = {f["path"] for f in preview.json()["files"]}
    assert {"src/pkg/mod.py", "new.py"} <= previewed and "ignored/skip.py" not in previewed
    assert not marker.exists()


def test_a_repository_git_cannot_open_is_still_searched(client, project, tree):
    (tree / ".git").mkdir()  # nothing in it: git refuses it as a repository
    found = {(m["path"], m["column"]) for m in _search(client, project, q="os")[:-1]}
    assert ("src/pkg/mod.py", 8) in found and ("notes.md", 8) in found
    assert not any(path.startswith("ignored/") for path, _ in found)
