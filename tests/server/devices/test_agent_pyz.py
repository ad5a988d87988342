"""The agent served by the workbench: the one-line pairing command on a fresh device, the
download's sha256 and who may download, self-update, and the doctor."""

import hashlib
import http.server
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from device_bridge.agent.update import AGENT_PATH, SHA_HEADER
from tests.conftest import LiveServer
from tests.server.devices.agent_venv import DeviceShell, device_env, make_venv
from tests.waiting import wait_until


def create_pairing(live: LiveServer, name: str = "phone") -> dict:
    response = httpx.post(f"{live.url}/api/devices/pairings", json={"name": name}, headers=live.auth)
    assert response.status_code == 201, response.text
    return response.json()


def download(live: LiveServer, token: str | None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx.get(f"{live.url}{AGENT_PATH}", headers=headers)


def devices(live: LiveServer) -> list[dict]:
    return httpx.get(f"{live.url}/api/devices", headers=live.auth).json()


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_venv(tmp_path_factory.mktemp("device") / "venv")


def test_the_pairing_command_brings_a_fresh_device_online(
    live_server: LiveServer, venv: Path, tmp_path: Path
) -> None:
    pairing = create_pairing(live_server)
    assert pairing["command"].startswith('python3 -c "')
    assert pairing["options"][0]["command"] == pairing["command"]
    home = tmp_path / "home"
    device = DeviceShell(pairing["command"], tmp_path / "empty", device_env(venv, home))
    try:
        wait_until(lambda: any(d["online"] for d in devices(live_server)), 60,
                   f"the device to come online: {device.log()}")
        [seen] = devices(live_server)
        assert seen["name"] == "phone"
        assert seen["info"]["agent_sha256"] == pairing["agent_sha256"]
        checks = {c["name"]: c for c in seen["info"]["checks"]}
        assert checks["websockets"]["ok"] and checks["debugpy"]["ok"]
        assert not checks["MNN"]["ok"] and "not installed" in checks["MNN"]["detail"]
        assert abs(seen["info"]["clock_skew"]) < 5
        saved = home / ".mnnwb-agent" / "agent.pyz"
        assert hashlib.sha256(saved.read_bytes()).hexdigest() == pairing["agent_sha256"]
        assert "connected to" in device.log()
        assert not list((tmp_path / "empty").iterdir())
    finally:
        device.kill()


class TamperingServer(http.server.ThreadingHTTPServer):
    """Serves the real agent with one byte changed, and the real sha256 header."""

    def __init__(self, data: bytes, sha256: str) -> None:
        tampered = data[:-100] + bytes([data[-100] ^ 1]) + data[-99:]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server name
                self.send_response(200)
                self.send_header(SHA_HEADER, sha256)
                self.send_header("Content-Length", str(len(tampered)))
                self.end_headers()
                self.wfile.write(tampered)

            def log_message(self, *args: object) -> None:
                return

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def tampering(live_server: LiveServer) -> Iterator[tuple[TamperingServer, str]]:
    pairing = create_pairing(live_server)
    original = download(live_server, pairing["token"])
    server = TamperingServer(original.content, original.headers[SHA_HEADER])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, pairing["command"].replace(live_server.url, f"http://127.0.0.1:{server.server_port}")
    server.shutdown()
    server.server_close()


def test_a_tampered_download_is_refused(
    tampering: tuple[TamperingServer, str], venv: Path, tmp_path: Path
) -> None:
    _, command = tampering
    home = tmp_path / "home"
    device = DeviceShell(command, tmp_path / "empty", device_env(venv, home))
    try:
        assert device.proc.wait(60) == 1
        assert "does not match its sha256: not running it" in device.log()
        assert not (home / ".mnnwb-agent" / "agent.pyz").exists()
    finally:
        device.kill()


def test_only_a_pairing_code_or_a_device_token_downloads_the_agent(
    live_server: LiveServer, venv: Path, tmp_path: Path
) -> None:
    assert download(live_server, None).status_code == 401
    assert download(live_server, live_server.token).json()["code"] == "bad_token"
    pairing = create_pairing(live_server)
    served = download(live_server, pairing["token"])
    assert served.status_code == 200
    assert hashlib.sha256(served.content).hexdigest() == served.headers[SHA_HEADER]
    assert served.headers[SHA_HEADER] == pairing["agent_sha256"]
    names = zipfile.ZipFile(io.BytesIO(served.content)).namelist()
    assert "__main__.py" in names and "device_bridge/agent/link.py" in names
    assert not [n for n in names if not (n == "__main__.py" or n.startswith("device_bridge/"))]

    home = tmp_path / "home"
    device = DeviceShell(pairing["command"], tmp_path / "empty", device_env(venv, home))
    try:
        [paired] = wait_until(lambda: [d for d in devices(live_server) if d["online"]], 60,
                              f"the device to come online: {device.log()}")
        # Online comes with the agent's hello; it keeps the token the welcome brings just after.
        device_token = wait_until(lambda: _stored_token(home), 60, "the agent to keep its device token")
        assert download(live_server, device_token).status_code == 200
        removed = httpx.delete(f"{live_server.url}/api/devices/{paired['id']}", headers=live_server.auth)
        assert removed.status_code == 204
        refused = download(live_server, device_token)
        assert refused.status_code == 401 and refused.json()["code"] == "bad_token"
    finally:
        device.kill()



def _stored_token(home: Path) -> str | None:
    """The device token the agent has written to its state, if it has yet."""
    return json.loads((home / ".mnnwb-agent" / "device.json").read_text()).get("token")


def older_build(data: bytes) -> bytes:
    """The same agent with one more file: another sha256, as after a workbench upgrade."""
    buffer = io.BytesIO(data)
    with zipfile.ZipFile(buffer, "a") as zf:
        zf.writestr("device_bridge/OLDER", b"an older build\n")
    return buffer.getvalue()


def test_an_agent_updates_itself_when_the_workbench_serves_another_build(
    live_server: LiveServer, venv: Path, tmp_path: Path
) -> None:
    pairing = create_pairing(live_server)
    agent_home = tmp_path / "home" / ".mnnwb-agent"
    agent_home.mkdir(parents=True)
    pyz = agent_home / "agent.pyz"
    pyz.write_bytes(older_build(download(live_server, pairing["token"]).content))
    env = {**device_env(venv, tmp_path / "home"), "MNNWB_PAIRING_CODE": pairing["token"]}
    device = DeviceShell(f"python3 {pyz} --server {live_server.url}", tmp_path / "empty", env)
    try:
        wait_until(lambda: device.log().count("connected to") == 2, 60,
                   "the agent to update, restart and connect again")
        log = device.log()
        assert "the workbench serves another agent build" in log and "restarting" in log
        assert hashlib.sha256(pyz.read_bytes()).hexdigest() == pairing["agent_sha256"]
        [seen] = devices(live_server)
        assert seen["online"] and seen["info"]["agent_sha256"] == pairing["agent_sha256"]
    finally:
        device.kill()


def test_doctor_says_what_works_and_that_mnn_is_missing(
    live_server: LiveServer, venv: Path, tmp_path: Path
) -> None:
    pyz = tmp_path / "agent.pyz"
    pyz.write_bytes(download(live_server, create_pairing(live_server)["token"]).content)
    device = DeviceShell(f"python3 {pyz} doctor --server {live_server.url}", tmp_path / "empty",
                         device_env(venv, tmp_path / "home"))
    try:
        assert device.proc.wait(60) == 0, device.log()
        lines = device.log().splitlines()
        assert any(line.split()[:2] == ["ok", "websockets"] for line in lines)
        assert any(line.split()[:2] == ["ok", "server"] for line in lines)
        assert any(line.split()[:2] == ["ok", "clock"] for line in lines)
        [mnn] = [i for i, line in enumerate(lines) if line.split()[:2] == ["missing", "MNN"]]
        assert "on-device benchmarks and tensor watchpoints will fail" in lines[mnn]
        assert "pip install" in lines[mnn + 1] and "MNN" in lines[mnn + 1]
    finally:
        device.kill()


def test_without_its_packages_and_pip_the_agent_says_how_to_get_pip(
    live_server: LiveServer, tmp_path: Path
) -> None:
    bare = make_venv(tmp_path / "bare", packages=())
    pyz = tmp_path / "agent.pyz"
    pyz.write_bytes(download(live_server, create_pairing(live_server)["token"]).content)
    device = DeviceShell(f"python3 {pyz} --server {live_server.url}", tmp_path / "empty",
                         device_env(bare, tmp_path / "home"))
    try:
        assert device.proc.wait(60) == 2
        assert "pip is missing for this Python: install it" in device.log()
    finally:
        device.kill()
