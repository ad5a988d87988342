"""The language server bridge: a real pylsp completes, diagnoses and finds definitions; viewers
are refused."""

import json
import os
import sys
from pathlib import Path

import httpx
import websockets.sync.client as ws_client
from starlette.websockets import WebSocketDisconnect

from server.api.services import services_of
from tests.conftest import make_client
from tests.server.team.conftest import Team
from tests.waiting import wait_until

WS = "ws://127.0.0.1:8765"


class Rpc:
    def __init__(self, ws) -> None:
        self.ws = ws
        self.next_id = 0
        self.notifications: list[dict] = []

    def notify(self, method: str, params: dict) -> None:
        self.ws.send_text(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.ws.send_text(json.dumps(request))
        while True:
            message = self.ws.receive_json()
            if message.get("id") == self.next_id and "method" not in message:
                assert "error" not in message, message
                return message["result"]
            self.notifications.append(message)

    def wait_notification(self, method: str) -> dict:
        while True:
            found = next((n for n in self.notifications if n.get("method") == method), None)
            if found:
                self.notifications.remove(found)
                return found
            self.notifications.append(self.ws.receive_json())


def _start(ws) -> tuple[Rpc, str]:
    hello = ws.receive_json()
    assert hello["method"] == "mnnwb/hello"
    root = hello["params"]["rootUri"]
    rpc = Rpc(ws)
    rpc.call("initialize", {"processId": None, "rootUri": root, "capabilities": {}})
    rpc.notify("initialized", {})
    return rpc, root


def test_completion_hover_definition_and_diagnostics(client, project):
    Path(project["path"], "helpers.py").write_text("def shout(text):\n    return text.upper()\n")
    with client.websocket_connect(f"{WS}/api/projects/{project['id']}/lsp") as ws:
        rpc, root = _start(ws)
        assert root.startswith("file:///")
        uri = f"{root}/main_test.py"
        text = "import os\nimport helpers\nos.pa\nhelpers.shout('x')\nundefined_name\n"
        rpc.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        completion = rpc.call("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": 2, "character": 5}})
        items = completion["items"] if isinstance(completion, dict) else completion
        assert "path" in [item["label"] for item in items]
        at_shout = {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 10}}
        hover = rpc.call("textDocument/hover", at_shout)
        assert "shout" in json.dumps(hover["contents"])
        definition = rpc.call("textDocument/definition", at_shout)
        assert definition[0]["uri"] == f"{root}/helpers.py"
        diagnostics = rpc.wait_notification("textDocument/publishDiagnostics")["params"]
        assert any("undefined_name" in d["message"] for d in diagnostics["diagnostics"])


def test_a_non_json_rpc_message_closes_with_1003(client, project):
    with client.websocket_connect(f"{WS}/api/projects/{project['id']}/lsp") as ws:
        ws.receive_json()
        ws.send_text('{"hello": 1}')
        try:
            while True:
                ws.receive_json()
        except WebSocketDisconnect as closed:
            assert closed.code == 1003


def test_viewers_get_no_language_server(team: Team):
    pid = team.new_project()
    for who, allowed in (("viewer", False), ("editor", True)):
        # A refusal is accepted first, then closed with 1008 and the reason.
        with team.client.websocket_connect(f"{WS}/api/projects/{pid}/lsp", headers=team.auth(who)) as ws:
            try:
                opened = ws.receive_json()["method"] == "mnnwb/hello"
            except WebSocketDisconnect as closed:
                assert (closed.code, closed.reason) == (
                    1008, "this needs the editor role on the project; you are a viewer")
                opened = False
        assert opened is allowed, who


def _language_servers(folder: str) -> set[int]:
    """Process ids of the pylsp processes running in ``folder`` (the interpreters themselves,
    not the sandbox's processes that started them)."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue  # not a process, or it ended meanwhile
        if argv[1:3] == [b"-m", b"pylsp"] and cwd == os.path.realpath(folder):
            found.add(int(entry.name))
    return found


def _complete_os_path(rpc: Rpc, uri: str) -> list[str]:
    completion = rpc.call("textDocument/completion", {
        "textDocument": {"uri": uri}, "position": {"line": 1, "character": 5}})
    items = completion["items"] if isinstance(completion, dict) else completion
    return [item["label"] for item in items]


def test_two_connections_share_one_language_server_until_both_leave(settings):
    settings.lsp_keep_seconds = 1.0
    with make_client(settings) as client:
        project = client.post("/api/projects", json={"name": "shared", "template": "empty"}).json()
        _share_and_leave(client, project)


def _share_and_leave(client, project: dict) -> None:
    url = f"{WS}/api/projects/{project['id']}/lsp"
    with client.websocket_connect(url) as first, client.websocket_connect(url) as second:
        one, root = _start(first)
        two, _ = _start(second)
        uri = f"{root}/shared.py"
        opened = {"uri": uri, "languageId": "python", "version": 1, "text": "import os\nos.pa\n"}
        one.notify("textDocument/didOpen", {"textDocument": opened})
        two.notify("textDocument/didOpen", {"textDocument": opened})
        assert "path" in _complete_os_path(one, uri)
        two.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        # The first connection still has it open: the server still knows the document.
        assert "path" in _complete_os_path(one, uri)
        assert "path" in _complete_os_path(two, uri)  # ids 1, 2 on both sockets, each answered
        processes = _language_servers(project["path"])
        assert len(processes) == 1, processes
        first.close()
        # The last connection that had the document open left: the server closed it.
        wait_until(lambda: not _complete_os_path(two, uri), what="the document to close")
        two.notify("textDocument/didOpen", {"textDocument": opened})
        assert "path" in _complete_os_path(two, uri)
        assert _language_servers(project["path"]) == processes
    wait_until(lambda: not _language_servers(project["path"]), what="the language server to end")



def test_a_connection_leaving_before_the_server_answers_initialize_is_let_go(
    live_server, monkeypatch
):
    """A language server still starting (here: one that never answers) holds neither a closed
    connection's handler nor, with it, the server's shutdown (uvicorn waits for every handler)."""
    from server.api.routes import lsp as lsp_route
    from server.lsp.service import plan_for

    def silent_server(*args, **kwargs):
        plan = plan_for(*args, **kwargs)
        plan.argv = [sys.executable, "-c", "import sys; sys.stdin.buffer.read()"]
        return plan

    monkeypatch.setattr(lsp_route, "plan_for", silent_server)
    with httpx.Client(base_url=live_server.url, headers=live_server.auth) as api:
        project = api.post("/api/projects", json={"name": "slow-lsp"}).json()
    url = live_server.url.replace("http", "ws") + f"/api/projects/{project['id']}/lsp"
    servers = services_of(live_server.server.config.app).language_servers
    with ws_client.connect(url, additional_headers=live_server.auth) as ws:
        ws.recv(timeout=10)
        ws.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"processId": None, "capabilities": {}}}))
        shared = wait_until(lambda: next(iter(servers._servers.values()), None),
                            what="the language server to start")
        wait_until(lambda: shared.links, what="the connection to attach")
    wait_until(lambda: not shared.links, what="the connection to be let go")
