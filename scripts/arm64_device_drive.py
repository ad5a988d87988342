"""Drive a workbench and an arm64 device (a Debian userland under qemu-user) end to end.

Run by ``scripts/arm64-device-check`` with the workbench's own Python; prints each step with
its time. It starts a workbench on a free port with a throwaway data folder, asks it for a
pairing, runs the very command it shows inside the arm64 root (an empty folder, nothing but
Debian's ``python3`` and ``python3-pip``), installs MNN's aarch64 wheel there with the command the
agent's doctor prints, then deploys a project, runs it, stops at a breakpoint under the debugger
and benchmarks a small MNN model on the device.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

REPO = Path(__file__).resolve().parents[1]
SCRIPT = """import platform
total = 0
for i in range(1, 5):
    total = total + i * 10
print("done on", platform.machine(), total)
"""
BREAK_LINE = 4
BUILD_MODEL = """import sys
import MNN.expr as F
x = F.placeholder([1, 3, 64, 64], F.NCHW)
x.name = "input"
y = F.sigmoid(F.relu(x) * F.scalar(2.0))
y.name = "output"
F.save([y], sys.argv[1])
"""
STARTED = time.monotonic()


def step(text: str) -> None:
    print(f"[{time.monotonic() - STARTED:7.1f} s] {text}", flush=True)


def wait_for(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Workbench:
    def __init__(self, data: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "MNNWB_DATA_DIR": str(data)}
        output = (data / "workbench.log").open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port",
                                      str(self.port)], cwd=REPO, env=env, stdout=output,
                                     stderr=subprocess.STDOUT)
        wait_for(self._up, 60, "the workbench to start")
        self.token = (data / "token").read_text().strip()
        self.auth = {"Authorization": f"Bearer {self.token}", "X-MNNWB-CSRF": "1"}

    def _up(self) -> bool:
        try:
            return httpx.get(f"{self.url}/api/health").status_code == 200
        except httpx.HTTPError:
            return False

    def api(self, method: str, path: str, **kwargs: Any) -> Any:
        answer = httpx.request(method, f"{self.url}{path}", headers=self.auth, timeout=60, **kwargs)
        answer.raise_for_status()
        return answer.json() if answer.content else None

    def tab(self, pid: str) -> ClientConnection:
        url = self.url.replace("http", "ws", 1) + f"/api/projects/{pid}/ws"
        return connect(url, additional_headers={"Authorization": f"Bearer {self.token}"})


class Tab:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seq = 0

    def send(self, channel: str, type_: str, **data: Any) -> None:
        self.ws.send(json.dumps({"v": 1, "channel": channel, "type": type_, "data": data}))

    def until(self, match: Callable[[dict], bool], timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            event = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if event["channel"] == "sys" and event["type"] == "ping":
                self.send("sys", "pong")
                continue
            if event["type"] == "error":
                raise SystemExit(f"device error: {event['data']}")
            if match(event):
                return event["data"]

    def dap(self, sid: str, command: str, **arguments: Any) -> int:
        self.seq += 1
        msg = {"seq": self.seq, "type": "request", "command": command, "arguments": arguments}
        self.send("dap", "dap", sid=sid, msg=msg)
        return self.seq

    def dap_reply(self, seq: int, timeout: float = 900) -> dict:
        return self.dap_message(lambda m: m.get("request_seq") == seq, timeout)

    def dap_event(self, name: str, timeout: float = 900) -> dict:
        return self.dap_message(lambda m: m.get("event") == name, timeout)

    def dap_message(self, match: Callable[[dict], bool], timeout: float) -> dict:
        found = self.until(lambda e: e["type"] == "dap" and match(e["data"]["msg"]), timeout)
        return dict(found["msg"])


def in_device(rootfs: Path, command: str, log: Path) -> subprocess.Popen[bytes]:
    """A shell in the arm64 root, in an empty folder, with nothing of ours on any path."""
    env = ["HOME=/root", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"]
    line = f"rm -rf /root/empty && mkdir -p /root/empty && cd /root/empty && {command}"
    return subprocess.Popen(["chroot", str(rootfs), "/usr/bin/env", "-i", *env, "/bin/sh", "-c", line],
                            stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)


def pair(bench: Workbench, rootfs: Path, log: Path) -> tuple[dict, subprocess.Popen[bytes]]:
    pairing = bench.api("POST", "/api/devices/pairings", json={"name": "arm64-qemu"})
    step(f"pairing command ({len(pairing['command'])} characters): {pairing['command'][:90]}…")
    agent = in_device(rootfs, pairing["command"], log)
    online = wait_for(lambda: [d for d in bench.api("GET", "/api/devices") if d["online"]], 1800,
                      "the arm64 device to come online")
    step(f"device online: {online[0]['info']['os']} {online[0]['info']['arch']}, Python "
         f"{online[0]['info']['python']}")
    return online[0], agent


def doctor(rootfs: Path, bench: Workbench, log: Path) -> str:
    command = f"python3 /root/.mnnwb-agent/agent.pyz doctor --server {bench.url}"
    in_device(rootfs, command, log).wait(900)
    return log.read_text(errors="replace")


def deploy_run_debug_bench(bench: Workbench, device: dict) -> None:
    project = bench.api("POST", "/api/projects", json={"name": "arm64-check", "template": "empty"})
    root = Path(project["path"])
    (root / "main.py").write_text(SCRIPT)
    subprocess.run([sys.executable, "-c", BUILD_MODEL, str(root / "tiny.mnn")], check=True,
                   capture_output=True, timeout=120)
    sid = bench.api("POST", f"/api/projects/{project['id']}/devices/{device['id']}/sessions")["sid"]
    with bench.tab(project["id"]) as ws:
        tab = Tab(ws)
        tab.send("devices", "sync.start", sid=sid)
        done = tab.until(lambda e: e["type"] == "sync.done", 600)
        step(f"deployed: {len(done['sent'])} files sent")
        tab.send("log", "run.start", sid=sid, argv=["main.py"])
        out = ""
        while True:
            event = tab.until(lambda e: e["type"] in ("log", "run.exit"), 600)
            if "code" in event:
                break
            out += event["text"]
        step(f"run: exit code {event['code']}, output {out.strip()!r}")
        debug(tab, sid)
        tab.send("devices", "bench.start", sid=sid, model="tiny.mnn", threads=2, loops=20,
                 warmup=3, per_op=True)
        result = tab.until(lambda e: e["type"] == "bench.result", 1200)
        figures = {k: result.get(k) for k in ("ok", "min_ms", "median_ms", "p90_ms", "error")}
        step(f"on-device benchmark of tiny.mnn (1x3x64x64, 2 threads, 20 loops): {figures}")


def debug(tab: Tab, sid: str) -> None:
    tab.send("log", "run.start", sid=sid, argv=["main.py"], debug=True)
    started = tab.until(lambda e: e["type"] == "run.started", 600)
    tab.dap_reply(tab.dap(sid, "initialize", clientID="check", adapterID="python",
                          pathFormat="path", linesStartAt1=True, columnsStartAt1=True))
    attach = tab.dap(sid, "attach", justMyCode=True)
    tab.dap_event("initialized")
    source = {"path": f"{started['cwd']}/main.py"}
    tab.dap_reply(tab.dap(sid, "setBreakpoints", source=source, breakpoints=[{"line": BREAK_LINE}]))
    tab.dap_reply(tab.dap(sid, "configurationDone"))
    tab.dap_reply(attach)
    stopped = tab.dap_event("stopped")
    thread = stopped["body"]["threadId"]
    frame = tab.dap_reply(tab.dap(sid, "stackTrace", threadId=thread))["body"]["stackFrames"][0]
    step(f"debugger stopped: reason {stopped['body']['reason']!r} at main.py line {frame['line']}")
    # the breakpoint is in a loop: clear it, so that continuing runs the program to its end
    tab.dap_reply(tab.dap(sid, "setBreakpoints", source=source, breakpoints=[]))
    tab.dap_reply(tab.dap(sid, "continue", threadId=thread))
    tab.dap_event("terminated")
    tab.dap(sid, "disconnect")
    exited = tab.until(lambda e: e["type"] == "run.exit", 600)
    step(f"debug run: exit code {exited['code']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rootfs", type=Path, required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still stop what was started
    data = Path(tempfile.mkdtemp(prefix="mnnwb-arm64-data-"))
    log = data / "device.log"
    bench = Workbench(data)
    agent = None
    try:
        step(f"workbench at {bench.url}")
        device, agent = pair(bench, args.rootfs, log)
        print(log.read_text(errors="replace"), flush=True)
        report = doctor(args.rootfs, bench, data / "doctor-before.log")
        print(report, flush=True)
        install = next((line.split("fix: ", 1)[1] for line in report.splitlines()
                        if "fix:" in line and "MNN" in line), None)
        if install:
            step(f"installing MNN with the doctor's command: {install}")
            in_device(args.rootfs, install, data / "pip-mnn.log").wait(3600)
        step("MNN installed; the doctor now says:")
        print(doctor(args.rootfs, bench, data / "doctor-after.log"), flush=True)
        deploy_run_debug_bench(bench, device)
        step("all steps passed")
        return 0
    finally:
        if agent is not None:
            os.killpg(agent.pid, signal.SIGTERM)
        bench.proc.terminate()
        bench.proc.wait(30)
        print(f"logs: {data}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
