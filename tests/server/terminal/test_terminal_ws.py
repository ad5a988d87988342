"""The terminal websocket: a real shell on a PTY — type, resize, reattach, close, expiry, venv."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.sandboxed import PID_ECHO, PID_PATTERN, host_pid
from tests.waiting import process_running, wait_until

WS = "ws://127.0.0.1:8765"


def _url(project: dict, query: str = "") -> str:
    return f"{WS}/api/projects/{project['id']}/terminal{query}"


def read_until(ws, needle: str, regex: bool = False) -> str:
    """Output messages until ``needle`` has appeared; returns all the text read."""
    text = ""
    while not (re.search(needle, text) if regex else needle in text):
        message = ws.receive_json()
        assert message["type"] == "output", message
        text += message["data"]
    return text


def until_closed(ws) -> int:
    """Read whatever is still coming until the server closes the socket; its close code."""
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            ws.receive_json()
    return closed.value.code



def _shell_pids(ws) -> tuple[int, int, str]:
    """The shell's pid in its sandbox (what ``$$`` says), here, and its pid namespace."""
    ws.send_json({"type": "input", "data": PID_ECHO + "\n"})
    inner, namespace = re.findall(PID_PATTERN, read_until(ws, PID_PATTERN, regex=True))[-1]
    return int(inner), host_pid(int(inner), namespace), namespace


def test_type_see_output_resize_and_reattach(client, project):
    with client.websocket_connect(_url(project, "?cols=90&rows=20")) as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello" and hello["created"] is True
        ws.send_json({"type": "input", "data": "echo $((6*7))x\n"})
        read_until(ws, "42x")
        ws.send_json({"type": "input", "data": "pwd; stty size\n"})
        text = read_until(ws, "20 90")
        assert os.path.realpath(project["path"]) in text
        ws.send_json({"type": "resize", "cols": 120, "rows": 33})
        ws.send_json({"type": "input", "data": "stty size\n"})
        read_until(ws, "33 120")
        inner, pid, _namespace = _shell_pids(ws)
    # The socket dropped (a reload): the shell keeps running and its output is replayed.
    assert process_running(pid)
    with client.websocket_connect(_url(project, f"?id={hello['id']}")) as ws:
        again = ws.receive_json()
        assert again == {"type": "hello", "id": hello["id"], "created": False}
        assert "33 120" in ws.receive_json()["data"]
        ws.send_json({"type": "input", "data": "echo still-$$\n"})
        read_until(ws, f"still-{inner}")
        ws.send_json({"type": "close"})
        assert until_closed(ws) == 1000
    wait_until(lambda: not process_running(pid), what="the shell to end with its terminal")


def test_processes_started_in_the_terminal_end_with_it(client, project):
    with client.websocket_connect(_url(project)) as ws:
        ws.receive_json()
        _inner, _pid, namespace = _shell_pids(ws)
        ws.send_json({"type": "input", "data": "sleep 300 & echo child=$!=\n"})
        text = read_until(ws, r"child=\d+=", regex=True)
        child = host_pid(int(re.findall(r"child=(\d+)=", text)[-1]), namespace)
        assert process_running(child)
        ws.send_json({"type": "close"})
        assert until_closed(ws) == 1000
    wait_until(lambda: not process_running(child), what="the background job to end with the terminal")


def test_exit_is_reported_and_an_unknown_id_starts_a_new_terminal(client, project):
    with client.websocket_connect(_url(project, "?id=gone")) as ws:
        assert ws.receive_json()["created"] is True
        ws.send_json({"type": "input", "data": "exit 3\n"})
        message = ws.receive_json()
        while message["type"] == "output":
            message = ws.receive_json()
        assert message == {"type": "exit", "code": 3}


def test_malformed_input_closes_with_1003(client, project):
    with client.websocket_connect(_url(project)) as ws:
        ws.receive_json()
        ws.send_text('{"type": "resize", "cols": 0}')
        assert until_closed(ws) == 1003


def test_the_projects_venv_is_activated(client, project):
    root = Path(project["path"])
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    with client.websocket_connect(_url(project)) as ws:
        ws.receive_json()
        ws.send_json({"type": "input", "data": 'echo "[$VIRTUAL_ENV]"; command -v python\n'})
        text = read_until(ws, "/.venv/bin/python\r\n")
    venv = os.path.realpath(root / ".venv")
    assert f"[{root / '.venv'}]" in text or f"[{venv}]" in text


@pytest.mark.parametrize("keep", [0.2])
def test_a_detached_terminal_ends_after_the_keep_time(settings, keep):
    from tests.conftest import make_client

    settings.terminal_keep_seconds = keep
    with make_client(settings) as client:
        project = client.post("/api/projects", json={"name": "t"}).json()
        with client.websocket_connect(_url(project)) as ws:
            ws.receive_json()
            _inner, pid, _namespace = _shell_pids(ws)
        wait_until(lambda: not process_running(pid), what="the detached shell to be ended")


def test_two_tabs_share_one_terminal_like_tmux(client, project):
    """A second socket on the same terminal (the same person's second tab) attaches beside the
    first: both see what either types, one leaving does not end it for the other."""
    with client.websocket_connect(_url(project)) as first:
        hello = first.receive_json()
        first.send_json({"type": "input", "data": "echo one-$((1+1))\n"})
        read_until(first, "one-2")
        with client.websocket_connect(_url(project, f"?id={hello['id']}")) as second:
            assert second.receive_json() == {"type": "hello", "id": hello["id"], "created": False}
            read_until(second, "one-2")  # the scrollback so far
            second.send_json({"type": "input", "data": "echo two-$((2+2))\n"})
            read_until(second, "two-4")
            read_until(first, "two-4")  # typed in the second tab, seen in the first
        # The second tab went away: the first still types and reads.
        first.send_json({"type": "input", "data": "echo three-$((3+3))\n"})
        read_until(first, "three-6")
        inner, pid, _namespace = _shell_pids(first)
        with client.websocket_connect(_url(project, f"?id={hello['id']}")) as third:
            third.receive_json()
            first.send_json({"type": "input", "data": "exit 3\n"})
            for ws in (first, third):  # the exit reaches every attached tab
                message = ws.receive_json()
                while message["type"] == "output":
                    message = ws.receive_json()
                assert message == {"type": "exit", "code": 3}
    wait_until(lambda: not process_running(pid), what="the shell to end")
