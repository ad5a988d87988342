"""A playground run on this machine (server/playground/local.py): the tab's ``playground``
commands start ``device_bridge.playground.run --live`` in the project's sandbox, its frames go in
on stdin and its kit calls come back as the ``log`` events of a device's run; Stop runs the
app's close callback."""

import base64
import io
import json
from pathlib import Path

from PIL import Image

from device_bridge.playground.kit import MARK
from tests.conftest import make_client

APP = {"applicationName": "Here", "entryFile": "/main.py", "modelName": ""}
MAIN = """import os
import MNNCV

kit = MNNCV.Kit()
kit.setLabel(0, "database seen: %s, settings seen: %s" % (
    os.path.exists(DATABASE), any(k.startswith("MNNWB_") for k in os.environ)))


def on_frame(data, format, width, height, inangle, outangle):
    kit.setLabel(1, "frame %dx%d red %d" % (width, height, int(data[..., 0].mean())))


kit.setCamera(on_frame)
kit.setCloseCallback(lambda: kit.setLabel(2, "bye"))
"""


def _ws(client, project):
    return client.websocket_connect(f"ws://127.0.0.1:8765/api/projects/{project['id']}/ws")


def _send(ws, type_, data):
    ws.send_text(json.dumps({"v": 1, "channel": "playground", "type": type_, "data": data}))


def _next(ws, channel, type_):
    while True:
        event = ws.receive_json()
        if (event["channel"], event["type"]) == (channel, type_):
            return event["data"]


def _labels_until(ws, sid, index):
    """The run's labels (index → text), read from its stdout until label ``index`` came."""
    labels: dict[int, str] = {}
    text = ""
    while index not in labels:
        data = _next(ws, "log", "log")
        assert data["sid"] == sid
        if data["stream"] != "stdout":
            continue
        text += data["text"]
        *lines, text = text.split("\n")
        for line in lines:
            if line.startswith(MARK):
                call = json.loads(line[len(MARK):])
                if call["call"] == "setLabel":
                    labels[call["index"]] = call["text"]
    return labels


def _red_jpeg() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), (255, 0, 0)).save(buffer, "JPEG", quality=95)
    return base64.b64encode(buffer.getvalue()).decode()


def test_a_run_on_this_machine_is_sandboxed_fed_on_stdin_and_stopped(
    client, project, settings, monkeypatch
) -> None:
    monkeypatch.setenv("MNNWB_SECRET_FOR_TEST", "not for the run")
    root = Path(project["path"])
    (root / "app.mnnplayground").write_text(json.dumps(APP))
    database = settings.data_dir / "workbench.db"
    assert database.exists()
    (root / "main.py").write_text(f"DATABASE = {str(database)!r}\n" + MAIN)
    with _ws(client, project) as ws:
        _send(ws, "run.start", {"sid": "here-1"})
        started = _next(ws, "log", "run.started")
        assert (started["sid"], started["cwd"], started["debug"]) == ("here-1", str(root), False)
        labels = _labels_until(ws, "here-1", 0)
        assert labels[0] == "database seen: False, settings seen: False"
        frame = json.dumps({"frame": 0, "jpeg": _red_jpeg()})
        _send(ws, "run.stdin", {"sid": "here-1", "text": f"MNNWB_FRAME {frame}\n"})
        labels = _labels_until(ws, "here-1", 1)
        assert labels[1].startswith("frame 8x6 red 25")  # JPEG's red is 254 or 255
        _send(ws, "run.stop", {"sid": "here-1"})
        assert _labels_until(ws, "here-1", 2)[2] == "bye"
        ended = _next(ws, "log", "run.exit")
    assert ended["sid"] == "here-1"
    # the run's exit 143 (stopped) comes out of the sandbox as 128 + SIGTERM, read as the signal
    assert (ended["code"], ended["signal"]) == (None, 15)


def test_bad_playground_commands_are_named_and_the_socket_stays(client, project):
    with _ws(client, project) as ws:
        _send(ws, "run.stdin", {"sid": "nothing", "text": "x\n"})
        error = _next(ws, "devices", "error")
        assert (error["sid"], error["code"], error["ref"]) == ("nothing", "not_running", "run.stdin")
        _send(ws, "run.start", {"sid": "bad sid!"})
        assert _next(ws, "devices", "error")["code"] == "bad_command"
        _send(ws, "run.launch", {"sid": "x"})
        error = _next(ws, "devices", "error")
        assert (error["code"], error["message"]) == ("bad_command", "unknown playground command 'run.launch'")
    assert client.get("/api/health").status_code == 200


WAITING_APP = """import MNNCV

kit = MNNCV.Kit()
kit.setLabel(0, "ready")
kit.setCamera(lambda *frame: None)
"""


def _playground(client, name):
    made = client.post("/api/projects", json={"name": name, "template": "empty", "git": False})
    assert made.status_code == 201, made.text
    root = Path(made.json()["path"])
    (root / "app.mnnplayground").write_text(json.dumps(APP))
    (root / "main.py").write_text(WAITING_APP)
    return made.json()


def test_a_person_has_at_most_the_cap_of_runs_on_this_machine(settings) -> None:
    settings.playground_local_max = 1
    with make_client(settings) as client:
        first, second = _playground(client, "one"), _playground(client, "two")
        with _ws(client, first) as ws_first, _ws(client, second) as ws_second:
            _send(ws_first, "run.start", {"sid": "first-1"})
            assert _labels_until(ws_first, "first-1", 0)[0] == "ready"
            _send(ws_second, "run.start", {"sid": "second-1"})
            error = _next(ws_second, "devices", "error")
            assert (error["sid"], error["ref"]) == ("second-1", "run.start")
            assert error["code"] == "playground_limit"
            assert error["message"] == ("at most 1 playground runs on this machine per person "
                                        "(MNNWB_PLAYGROUND_LOCAL_MAX); stop one first")
            # the project's own run is replaced, not counted against the cap
            _send(ws_first, "run.start", {"sid": "first-2"})
            assert _next(ws_first, "log", "run.exit")["sid"] == "first-1"
            assert _labels_until(ws_first, "first-2", 0)[0] == "ready"
            _send(ws_first, "run.stop", {"sid": "first-2"})
            assert _next(ws_first, "log", "run.exit")["sid"] == "first-2"
            # stopping one makes room
            _send(ws_second, "run.start", {"sid": "second-2"})
            assert _labels_until(ws_second, "second-2", 0)[0] == "ready"
            _send(ws_second, "run.stop", {"sid": "second-2"})
            assert _next(ws_second, "log", "run.exit")["sid"] == "second-2"
