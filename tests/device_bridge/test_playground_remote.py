"""``mnnwb playground run PATH --device ID --server URL --token-file FILE`` (remote.py): a
playground project runs on a real agent process paired with a live server, and prints the kit
calls the run here prints; SIGTERM stops it on the device (its close callback runs, exit 143);
what cannot run is named, with exit code 2."""

import json
import signal
import subprocess
from pathlib import Path

import httpx

from tests.device_bridge.test_playground import MNNWB, kit_calls
from tests.fakes.playground import camera_project
from tests.webui.test_device_debug import device  # noqa: F401 - a fixture
from tests.webui.workbench import create_project


def _remote(live_server, tmp_path: Path, *args: str) -> list[str]:
    token = tmp_path / "token"
    token.write_text(live_server.token)
    return [MNNWB, "playground", "run", *args, "--server", live_server.url, "--token-file", str(token)]


def test_a_playground_on_a_device_prints_the_calls_it_prints_here(
    live_server, device: dict, tmp_path: Path  # noqa: F811
) -> None:
    folder = camera_project(Path(create_project(live_server, "colours")["path"]))
    command = _remote(live_server, tmp_path, str(folder), "--device", device["id"], "--frames", "3", "--json")
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    there = [json.loads(line) for line in done.stdout.splitlines()]
    code, here = kit_calls(folder, "--frames", "3")
    assert code == 0
    assert [c["call"] for c in there] == [c["call"] for c in here]
    labels = [c["text"] for c in there if c["call"] == "setLabel"]
    assert labels == [c["text"] for c in here if c["call"] == "setLabel"]
    assert [text.split()[0] for text in labels] == ["photo:", "red", "green", "blue", "bye"]
    # the same frames (hashes) went to the callback on the device as here
    frames_there = [c["image"] for c in there if c["call"] == "frame"]
    assert frames_there == [c["image"] for c in here if c["call"] == "frame"]


def test_sigterm_stops_the_run_on_the_device_and_its_close_callback_runs(
    live_server, device: dict, tmp_path: Path  # noqa: F811
) -> None:
    folder = camera_project(Path(create_project(live_server, "forever")["path"]))
    (folder / "main.py").write_text(
        "import time\nimport MNNCV\nkit = MNNCV.Kit()\n"
        "kit.setCloseCallback(lambda: kit.setLabel(0, 'closed on the device'))\n"
        "while True:\n    time.sleep(0.05)\n")
    command = _remote(live_server, tmp_path, str(folder), "--device", device["id"])
    lines: list[str] = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as cli:
        assert cli.stdout is not None
        for line in cli.stdout:
            lines.append(line)
            if "setCloseCallback" in line:
                cli.send_signal(signal.SIGTERM)
        code = cli.wait(timeout=60)
    assert code == 143, lines
    assert "label 0: closed on the device\n" in lines


def test_what_cannot_run_on_a_device_is_named_with_exit_code_2(
    live_server, tmp_path: Path
) -> None:
    folder = camera_project(Path(create_project(live_server, "nowhere")["path"]))
    done = subprocess.run(_remote(live_server, tmp_path, str(folder), "--device", "no-such-device"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "no such device" in done.stderr

    elsewhere = camera_project(tmp_path / "not-a-project-of-the-server")
    done = subprocess.run(_remote(live_server, tmp_path, str(elsewhere), "--device", "x"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"no project of the server has the folder {elsewhere}" in done.stderr

    done = subprocess.run([MNNWB, "playground", "run", str(folder), "--device", "x"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--device and --server go together" in done.stderr
    assert httpx.get(f"{live_server.url}/api/health").status_code == 200
