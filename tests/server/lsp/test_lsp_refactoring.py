"""The workbench's language server plugin (server/lsp/plugin.py) through the real bridge and pylsp:
rename, references, workspace symbols, formatting, organising imports, diagnostics of files no
editor has open, quick fixes; and the routes that apply a rename's edits to files on disk."""

import json
from pathlib import Path

import pytest

from server.lsp.textedits import apply_edits
from tests.server.lsp.test_lsp_ws import WS, Rpc, _start

HELPERS = "def shout(text):\n    return text.upper()\n"
USER_A = "from helpers import shout\n\nprint(shout('a'))\n"
USER_B = "import helpers\n\nhelpers.shout('b')\n"


def _failure(rpc: Rpc, method: str, params: dict) -> dict:
    """The error a request is answered with."""
    rpc.next_id += 1
    rpc.ws.send_text(json.dumps({"jsonrpc": "2.0", "id": rpc.next_id, "method": method, "params": params}))
    while True:
        message = rpc.ws.receive_json()
        if message.get("id") == rpc.next_id and "method" not in message:
            assert "error" in message, message
            return message["error"]
        rpc.notifications.append(message)


def _open(rpc: Rpc, uri: str, text: str) -> None:
    rpc.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}})


@pytest.fixture
def three_files(project) -> Path:
    root = Path(project["path"])
    (root / "helpers.py").write_text(HELPERS)
    (root / "a.py").write_text(USER_A)
    (root / "pkg").mkdir()
    (root / "pkg" / "b.py").write_text(USER_B)
    return root


def test_rename_references_and_symbols_across_three_files(client, project, three_files):
    base = f"/api/projects/{project['id']}/lsp/edits"
    with client.websocket_connect(f"{WS}/api/projects/{project['id']}/lsp") as ws:
        rpc, root = _start(ws)
        _open(rpc, f"{root}/a.py", USER_A)
        at_shout = {"textDocument": {"uri": f"{root}/a.py"}, "position": {"line": 2, "character": 8}}
        references = rpc.call("textDocument/references",
                              {**at_shout, "context": {"includeDeclaration": True}})
        assert sorted((r["uri"].removeprefix(root), r["range"]["start"]["line"]) for r in references) == [
            ("/a.py", 0), ("/a.py", 2), ("/helpers.py", 0), ("/pkg/b.py", 2)]
        symbols = rpc.call("workspace/symbol", {"query": "sho"})
        assert [(s["name"], s["kind"], s["location"]["uri"].removeprefix(root)) for s in symbols] == [
            ("shout", 12, "/helpers.py")]
        assert symbols[0]["location"]["range"]["start"] == {"line": 0, "character": 4}
        renamed = rpc.call("mnnwb/rename", {**at_shout, "newName": "yell"})
        assert renamed["name"] == "shout"
        changes = {uri.removeprefix(root + "/"): edits for uri, edits in renamed["changes"].items()}
        assert sorted(changes) == ["a.py", "helpers.py", "pkg/b.py"]
        assert len(changes["a.py"]) == 2
        refused = _failure(rpc, "mnnwb/rename", {**at_shout, "newName": "class"})
        assert refused["message"] == "'class' is not a Python name"
        at_print = {"textDocument": {"uri": f"{root}/a.py"}, "position": {"line": 2, "character": 2}}
        refused = _failure(rpc, "mnnwb/rename", {**at_print, "newName": "say"})
        assert "defined outside the project" in refused["message"]

    # The editor has a.py open (it edits its own copy); the two others are written by the server.
    closed = [{"path": path, "edits": changes[path]} for path in ("helpers.py", "pkg/b.py")]
    preview = client.post(f"{base}/preview", json={"files": closed}).json()
    assert preview["skipped"] == []
    assert [(f["path"], f["changes"]) for f in preview["files"]] == [
        ("helpers.py", [{"line": 1, "before": "def shout(text):", "after": "def yell(text):"}]),
        ("pkg/b.py", [{"line": 3, "before": "helpers.shout('b')", "after": "helpers.yell('b')"}]),
    ]
    targets = [{**f, "etag": p["etag"]} for f, p in zip(closed, preview["files"], strict=True)]
    applied = client.post(base, json={"files": targets}).json()
    assert applied["skipped"] == []
    assert (three_files / "helpers.py").read_text() == "def yell(text):\n    return text.upper()\n"
    assert (three_files / "pkg" / "b.py").read_text() == "import helpers\n\nhelpers.yell('b')\n"
    # Undo: the edits it answered, with the etags it answered.
    undo = [{"path": f["path"], "etag": f["etag"], "edits": f["undo"]} for f in applied["applied"]]
    assert client.post(base, json={"files": undo}).json()["skipped"] == []
    assert (three_files / "helpers.py").read_text() == HELPERS
    assert (three_files / "pkg" / "b.py").read_text() == USER_B


BADLY_FORMATTED = "import sys\nimport os\nx=[1,2,\n 3]\ndef  f( a ):\n  return a\n"


def test_format_organise_imports_diagnostics_and_quick_fixes(client, project, three_files):
    (three_files / "messy.py").write_text(BADLY_FORMATTED)
    (three_files / "closed.py").write_text("print(not_defined)\n")
    with client.websocket_connect(f"{WS}/api/projects/{project['id']}/lsp") as ws:
        rpc, root = _start(ws)
        uri = f"{root}/messy.py"
        _open(rpc, uri, BADLY_FORMATTED)
        formatted = rpc.call("mnnwb/format", {"textDocument": {"uri": uri}})
        assert formatted["tool"] == "ruff (the server's)"
        assert apply_edits(BADLY_FORMATTED, formatted["edits"])[0] == (
            "import sys\nimport os\n\nx = [1, 2, 3]\n\n\ndef f(a):\n    return a\n")
        # Only the selected lines: the function.
        selection = {"start": {"line": 4, "character": 0}, "end": {"line": 5, "character": 10}}
        formatted = rpc.call("mnnwb/format", {"textDocument": {"uri": uri}, "range": selection})
        assert apply_edits(BADLY_FORMATTED, formatted["edits"])[0].endswith(
            "x=[1,2,\n 3]\ndef f(a):\n    return a\n")
        organised = rpc.call("mnnwb/organizeImports", {"textDocument": {"uri": uri}})
        assert apply_edits(BADLY_FORMATTED, organised["edits"])[0].startswith(
            "import os\nimport sys\n\nx=[1,2,")
        broken = f"{root}/broken.py"
        _open(rpc, broken, "def (:\n")
        refused = _failure(rpc, "mnnwb/format", {"textDocument": {"uri": broken}})
        assert refused["message"].startswith("ruff (the server's): error: Failed to parse")

        found = rpc.call("mnnwb/diagnostics", {"uris": [f"{root}/closed.py", f"{root}/gone.py"]})
        assert [(d["uri"].removeprefix(root), [x["message"] for x in d["diagnostics"]]) for d in found] == [
            ("/closed.py", ["undefined name 'not_defined'"]), ("/gone.py", [])]
        assert rpc.call("mnnwb/diagnostics", {"uris": ["file:///etc/passwd.py"]}) == []

        fixable = "import os\nimport json, sys\nprint(sys, shout)\n"
        uri = f"{root}/fixable.py"
        _open(rpc, uri, fixable)
        diagnostics = []
        while len(diagnostics) < 3:
            published = rpc.wait_notification("textDocument/publishDiagnostics")["params"]
            if published["uri"] == uri:
                diagnostics = published["diagnostics"]
        actions = rpc.call("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diagnostics[0]["range"],
            "context": {"diagnostics": diagnostics}})
        titles = {a["title"]: a["edit"]["changes"][uri] for a in actions}
        assert sorted(titles) == [
            "Import shout from helpers", "Remove unused import json", "Remove unused import os"]
        fixed = {title: apply_edits(fixable, edits)[0] for title, edits in titles.items()}
        assert fixed == {
            "Remove unused import os": "import json, sys\nprint(sys, shout)\n",
            "Remove unused import json": "import os\nimport sys\nprint(sys, shout)\n",
            "Import shout from helpers":
                "import os\nimport json, sys\nfrom helpers import shout\nprint(sys, shout)\n",
        }


def test_edits_outside_the_project_are_refused_before_any_file_is_read(client, project, three_files):
    base = f"/api/projects/{project['id']}/lsp/edits"
    edit = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "newText": "x"}
    refused = (("../escape.py", "path_escape"), (".git/config", "git_dir"), ("/etc/passwd", "bad_path"))
    for path, code in refused:
        inside = {"path": "helpers.py", "edits": [edit], "etag": "0"}
        for url in (f"{base}/preview", base):
            answer = client.post(url, json={"files": [inside, {"path": path, "edits": [edit], "etag": "0"}]})
            assert answer.json()["code"] == code, (url, path, answer.text)
    assert (three_files / "helpers.py").read_text() == HELPERS


def test_a_request_of_too_many_edits_is_refused_before_they_are_read(client, project, three_files):
    from server.lsp.models import MAX_EDITS

    base = f"/api/projects/{project['id']}/lsp/edits"
    edit = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "newText": "x"}
    per_file = MAX_EDITS // 10
    files = [{"path": "helpers.py", "edits": [edit] * per_file, "etag": "0"} for _ in range(11)]
    for url in (f"{base}/preview", base):
        answer = client.post(url, json={"files": files})
        assert answer.status_code == 422 and answer.json()["code"] == "invalid", answer.text[:300]
        assert f"{11 * per_file} edits in one request; at most {MAX_EDITS}" in answer.text
    assert (three_files / "helpers.py").read_text() == HELPERS


def test_a_file_changed_since_the_preview_stops_the_whole_rename(client, project, three_files):
    base = f"/api/projects/{project['id']}/lsp/edits"
    rename = {"range": {"start": {"line": 0, "character": 20}, "end": {"line": 0, "character": 25}},
              "newText": "yell"}
    files = [{"path": "a.py", "edits": [rename]},
             {"path": "helpers.py", "edits": [{**rename, "range": {
                 "start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 9}}}]}]
    preview = client.post(f"{base}/preview", json={"files": files}).json()
    (three_files / "helpers.py").write_text(HELPERS + "# changed\n")
    targets = [{**f, "etag": p["etag"]} for f, p in zip(files, preview["files"], strict=True)]
    answer = client.post(base, json={"files": targets}).json()
    assert answer == {"applied": [], "skipped": [
        {"path": "helpers.py", "detail": "the file changed since the preview", "code": "changed"}]}
    assert (three_files / "a.py").read_text() == USER_A
    past_the_end = {"range": {"start": {"line": 40, "character": 0}, "end": {"line": 40, "character": 1}},
                    "newText": ""}
    files = [{"path": "a.py", "edits": [past_the_end]}]
    preview = client.post(f"{base}/preview", json={"files": files}).json()
    assert preview["skipped"][0]["code"] == "bad_edit"


def test_format_on_save_is_a_setting_of_each_person(client):
    assert client.get("/api/editor/settings").json() == {"format_on_save": False}
    answer = client.put("/api/editor/settings", json={"format_on_save": True})
    assert answer.json() == {"format_on_save": True}
    assert client.get("/api/editor/settings").json() == {"format_on_save": True}
