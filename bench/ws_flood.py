"""Server memory under a flood of oversized websocket messages: 30 tabs each send a 15 MiB text
message to the tab socket, as in the attack that took the server from 151 to 675 MB.

Two real server processes on fresh data dirs, measured in the same run:

* ``baseline``: uvicorn's stock websocket protocol with a 16 MiB limit for every socket (the
  tab's 1 MiB limit checked only by the app, after the message is in memory);
* ``bounded``: ``mnnwb serve`` as shipped (``server/api/ws_limits.py``: the limit of the
  socket's path, checked from the frame header before the payload is read).

For each: resident memory before the flood, its peak while the 30 messages arrive, after the
flood (2 s after the last socket closed) and after a second flood like the first. "before" is
taken after 30 tabs have each sent a small message, so what 30 sockets cost by themselves is
not counted as the flood's.

Run: ``.venv/bin/python bench/ws_flood.py``
"""

import argparse
import asyncio
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import free_port, start_server, stop_server  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TABS = 30
MESSAGE = "x" * (15 * 1024 * 1024)
MB = 1024 * 1024


def serve_baseline(data_dir: Path, port: int) -> None:
    """The server as it was: uvicorn's default websocket protocol, 16 MiB for every socket."""
    import uvicorn

    from server.app import create_app
    from server.cli import url_for
    from server.core.config import Settings

    settings = Settings(data_dir=data_dir, port=port)
    app = create_app(settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            ws_max_size=16 * MB)
    server = uvicorn.Server(config)

    async def main() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.05)
        print(url_for(settings, app.state.token, port), flush=True)
        await task

    asyncio.run(main())


def start_baseline(data_dir: Path) -> tuple[subprocess.Popen[str], str, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve-baseline", str(data_dir), str(port)], cwd=REPO,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    base, _, token = line.partition("/?token=")
    if not token:
        proc.kill()
        raise RuntimeError("the baseline server did not start")
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, base, token


async def one_tab(url: str, token: str, message: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    try:
        async with connect(url, additional_headers=headers, max_size=None,
                           open_timeout=60, close_timeout=10) as ws:
            await ws.send(message)
            await ws.wait_closed()
    except (TimeoutError, OSError, WebSocketException):
        pass  # the server refusing the message may cut the connection mid-send


async def tabs(url: str, token: str, message: str) -> None:
    await asyncio.gather(*(one_tab(url, token, message) for _ in range(TABS)))


def rss(proc: psutil.Process) -> float:
    return proc.memory_info().rss / MB


def measure(name: str, start: object) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, token = start(Path(tmp) / "data")  # type: ignore[operator]
        try:
            headers = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
            with httpx.Client(base_url=base, headers=headers, timeout=60) as api:
                project = api.post("/api/projects", json={"name": "flood", "template": "empty"}).json()
                api.get(f"/api/projects/{project['id']}/files")  # warm the routes up
            server = psutil.Process(proc.pid)
            url = base.replace("http", "ws", 1) + f"/api/projects/{project['id']}/ws"
            cold = rss(server)
            # 30 tabs with a small (malformed, so closed) message first: what 30 sockets cost
            # by themselves (threads, their allocator arenas) is paid before "before".
            asyncio.run(tabs(url, token, "x"))
            time.sleep(1.0)
            before = rss(server)
            peak = before
            done = threading.Event()

            def sample() -> None:
                nonlocal peak
                while not done.is_set():
                    peak = max(peak, rss(server))
                    time.sleep(0.02)

            sampler = threading.Thread(target=sample)
            sampler.start()
            started = time.perf_counter()
            asyncio.run(tabs(url, token, MESSAGE))
            elapsed = time.perf_counter() - started
            time.sleep(2.0)
            after = rss(server)
            asyncio.run(tabs(url, token, MESSAGE))
            time.sleep(2.0)
            done.set()
            sampler.join()
            again = rss(server)
        finally:
            stop_server(proc)
    print(f"{name:9} cold {cold:4.0f} MB  before {before:4.0f} MB  peak {peak:4.0f} MB  "
          f"after {after:4.0f} MB (+{after - before:.0f} MB)  after a second flood {again:4.0f} MB  "
          f"flood {elapsed:.1f} s", flush=True)
    return {"cold": cold, "before": before, "peak": peak, "after": after, "again": again}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve-baseline", nargs=2, metavar=("DATA_DIR", "PORT"))
    args = parser.parse_args()
    if args.serve_baseline:
        serve_baseline(Path(args.serve_baseline[0]), int(args.serve_baseline[1]))
        return
    print(f"{TABS} tabs each send a {len(MESSAGE) // MB} MiB message to the tab socket")
    measure("baseline", start_baseline)
    measure("bounded", lambda data: start_server(data, timeout=120))


if __name__ == "__main__":
    main()
