"""Job logs to a browser tab: completeness, order, lag and server CPU.

A real server process runs a local job; a websocket client subscribed to the project (as a
tab is) collects the ``job.log`` events. Two runs:

* 100,000 lines printed at full speed: every line must arrive, in order, once;
* 10,000 lines/s for 5 s: lag from the line's print to its arrival at the client (p50/p99).

For each run it reports the server process's CPU use (cores, averaged over the run).
Targets (issue): lag p99 <= 200 ms at 10,000 lines/s; server CPU below one core.

Run: ``.venv/bin/python bench/job_logs.py``
"""

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil
import websockets.sync.client as ws_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import free_port  # noqa: E402

FULL_SPEED = """
import time
for i in range({lines}):
    print(i, time.time())
"""
PACED = """
import time
start = time.time()
for burst in range({lines} // 100):
    delay = start + burst * 0.01 - time.time()
    if delay > 0:
        time.sleep(delay)
    for i in range(burst * 100, burst * 100 + 100):
        print(i, time.time())
"""


def serve(data_dir: Path, port: int) -> None:
    """The server process: the real app, without the folder watcher (not under test here)."""
    import uvicorn

    from server.app import create_app
    from server.core.config import Settings

    app = create_app(Settings(data_dir=data_dir, port=port, watch_files=False))
    asyncio.run(uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                              log_level="warning")).serve())


def start_server(data_dir: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(data_dir), str(port)])
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                return proc, url, (data_dir / "token").read_text().strip()
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def run_job(api: httpx.Client, server: psutil.Process, project: dict, script: str) -> dict:
    """Submit the job with a subscribed socket; returns arrivals and the server's CPU use."""
    Path(project["path"], "job.py").write_text(script)
    ws_url = str(api.base_url).rstrip("/").replace("http://", "ws://")
    arrivals: list[tuple[float, str]] = []
    headers = {"Authorization": api.headers["Authorization"]}
    with ws_client.connect(f"{ws_url}/api/projects/{project['id']}/ws",
                           additional_headers=headers, max_size=8 * 1024 * 1024) as socket:
        cpu_before, wall_before = sum(server.cpu_times()[:2]), time.monotonic()
        api.post(f"/api/projects/{project['id']}/jobs",
                 json={"backend": "local", "command": "python job.py"}).raise_for_status()
        status, offsets, closed = "running", [], None
        while status in ("queued", "running"):
            try:
                event = json.loads(socket.recv(timeout=60))
            except Exception as exc:  # noqa: BLE001 - reported, not hidden
                closed = repr(exc)
                break
            if event["type"] == "job.log":
                arrivals.append((time.time(), event["data"]["text"]))
                offsets.append((event["data"]["offset"], event["data"]["next_offset"]))
            elif event["type"] == "job.status":
                status = event["data"]["job"]["status"]
        wall = time.monotonic() - wall_before
        cpu = sum(server.cpu_times()[:2]) - cpu_before
    contiguous = all(a[1] == b[0] for a, b in zip(offsets, offsets[1:], strict=False))
    return {"arrivals": arrivals, "status": status, "wall": wall, "cpu": cpu, "closed": closed,
            "contiguous": contiguous and bool(offsets) and offsets[0][0] == 0,
            "events": len(offsets)}


def analyse(result: dict, lines: int) -> dict:
    numbers, lags = [], []
    for received, text in result["arrivals"]:
        for line in text.splitlines():
            index, printed = line.split()
            numbers.append(int(index))
            lags.append((received - float(printed)) * 1000.0)
    lags.sort()
    return {
        "complete_in_order": numbers == list(range(lines)),
        "received": len(numbers),
        "p50_ms": statistics.median(lags) if lags else float("nan"),
        "p99_ms": lags[int(0.99 * (len(lags) - 1))] if lags else float("nan"),
        "max_ms": lags[-1] if lags else float("nan"),
    }


def report(name: str, lines: int, result: dict) -> None:
    stats = analyse(result, lines)
    print(f"{name}: status {result['status']}, {stats['received']}/{lines} lines, "
          f"complete and in order: {stats['complete_in_order']}, offsets contiguous: "
          f"{result['contiguous']}, {result['events']} log events, socket closed early: "
          f"{result['closed']}")
    print(f"  {lines / result['wall']:,.0f} lines/s end to end over {result['wall']:.2f} s; "
          f"lag p50 {stats['p50_ms']:.1f} ms, p99 {stats['p99_ms']:.1f} ms, "
          f"max {stats['max_ms']:.1f} ms; server CPU {result['cpu'] / result['wall']:.2f} cores "
          f"({result['cpu']:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--paced-seconds", type=int, default=5)
    parser.add_argument("--serve", nargs=2, metavar=("DATA_DIR", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), int(args.serve[1]))
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc, url, token = start_server(Path(tmp))
        try:
            headers = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
            with httpx.Client(base_url=url, headers=headers, timeout=30) as api:
                server = psutil.Process(proc.pid)
                project = api.post("/api/projects", json={"name": "bench",
                                                          "template": "empty"}).json()
                full = run_job(api, server, project, FULL_SPEED.format(lines=args.lines))
                report("full speed", args.lines, full)
                paced_lines = 10_000 * args.paced_seconds
                paced = run_job(api, server, project, PACED.format(lines=paced_lines))
                report("10,000 lines/s", paced_lines, paced)
        finally:
            proc.terminate()
            proc.wait(timeout=10)


if __name__ == "__main__":
    main()
