"""Device → tab relay latency and throughput, and the sync of a 1,000-file project.

Three processes: a real server (uvicorn, device bridge installed), a device-side streamer that
speaks the bridge protocol (pairing code → token → session → ``perf`` messages), and this one,
holding 10 tab websockets subscribed to the project. Runs:

* paced: 1,000 perf samples/s for 5 s → device→tab latency p50/p99 (target p99 <= 25 ms);
* flat out for 5 s → samples/s delivered to each tab (perf is coalesced for slow tabs, so the
  dropped count is reported too);
* the same flat-out stream through a plain ``websockets`` relay (no hub, no JSON parsing) that
  forwards each message to the 10 clients: the physical limit here (target: the hub >= 50%);
* sync: a real agent process deploys a 1,000-file project, one file changes, deploys again.

The bench server raises the per-device rate limit so the flat-out run measures the relay, not
the limiter. Run: ``.venv/bin/python bench/device_relay.py``
"""

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import free_port  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TABS = 10
SECONDS = 5.0
INFO = {
    "id": "bench-streamer",
    "name": "streamer",
    "os": "bench",
    "arch": "x86_64",
    "python": "3",
    "cpus": 1,
    "mem": 1,
}


# ---- child process roles --------------------------------------------------------------------


def serve_hub(data_dir: Path, port: int) -> None:
    import uvicorn

    from device_bridge.links import Limits
    from server.api.services import services_of
    from server.app import create_app
    from server.core.config import Settings
    from server.devices import bridge
    from server.flow.device_records import DeviceRecords

    app = create_app(Settings(data_dir=data_dir, port=port, watch_files=False))
    original = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_) -> AsyncIterator[None]:
        async with original(app_):
            services = services_of(app_)  # the bridge again, without the rate limit
            services.devices = bridge.install(services.tab_commands, services.engine,
                                              DeviceRecords(services.engine, services.hub),
                                              Limits(rate=1e9, burst=1e9))
            yield

    app.router.lifespan_context = lifespan
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def serve_plain(port: int) -> None:
    """A plain relay: what the device sends goes to every client on ``/tab``."""
    tabs: set[ServerConnection] = set()

    async def handler(ws: ServerConnection) -> None:
        if ws.request is not None and ws.request.path == "/tab":
            tabs.add(ws)
            try:
                await ws.wait_closed()
            finally:
                tabs.discard(ws)
            return
        async for message in ws:
            broadcast(tabs, message)

    async def main() -> None:
        async with serve(handler, "127.0.0.1", port, max_size=None):
            await asyncio.Future()

    asyncio.run(main())


async def stream(url: str, code: str | None, project: str, rate: float, seconds: float) -> None:
    """The device side: authenticate (unless plain), wait for the project's session (a device
    that was paired before also gets its older sessions re-opened), send perf samples."""
    async with connect(url, max_size=None) as ws:
        sid = "plain"
        if code is not None:
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": code, "device": INFO}))
            async for frame in ws:
                message = json.loads(frame)
                if message["type"] == "session.open" and message["project"] == project:
                    sid = message["sid"]
                    break
        sent = await pump(ws, sid, rate, seconds)
        print(json.dumps({"sent": sent}), flush=True)


async def pump(ws, sid: str, rate: float, seconds: float) -> int:
    start = time.perf_counter()
    sent = 0
    while (elapsed := time.perf_counter() - start) < seconds:
        due = int(elapsed * rate) + 1 if rate else sent + 100
        while sent < due:
            await ws.send(
                json.dumps({"type": "perf", "sid": sid, "t": time.time(), "cpu": 1.0, "rss": 1, "threads": 1})
            )
            sent += 1
        if rate:
            await asyncio.sleep(0.002)
    return sent


# ---- the measuring side ---------------------------------------------------------------------


class Tab:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.dropped = 0
        self.first = self.last = 0.0

    async def listen(self, ws, plain: bool) -> None:
        async for frame in ws:
            now = time.time()
            message = json.loads(frame)
            if not plain and message.get("channel") == "sys":
                self.dropped += message["data"].get("count", 0)
                continue
            if plain:
                samples = [message]
            elif message["channel"] == "perf":
                samples = message["data"]["samples"]
            else:
                continue
            self.latencies.extend((now - sample["t"]) * 1000 for sample in samples)
            self.first = self.first or now
            self.last = now


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, __file__, *args], cwd=REPO, text=True, stdout=subprocess.PIPE)


async def measure(
    tab_urls: list[str], headers: dict[str, str], streamer: list[str], plain: bool, setup=None
) -> dict[str, float]:
    tabs = [Tab() for _ in tab_urls]
    sockets = [await connect(u, additional_headers=headers, max_size=None) for u in tab_urls]
    listeners = [asyncio.create_task(t.listen(s, plain)) for t, s in zip(tabs, sockets, strict=True)]
    proc = spawn("stream", *streamer)
    if setup is not None:
        await setup()
    out, _ = await asyncio.to_thread(proc.communicate)
    await asyncio.sleep(1.0)  # let the tail of the stream drain to the tabs
    for sock in sockets:
        await sock.close()
    await asyncio.gather(*listeners, return_exceptions=True)
    sent = json.loads(out.strip().splitlines()[-1])["sent"]
    latencies = sorted(x for t in tabs for x in t.latencies)
    per_tab = [len(t.latencies) / max(1e-9, t.last - t.first) for t in tabs if t.latencies]
    return {
        "sent": sent,
        "delivered_per_tab": len(latencies) / len(tabs),
        "rate_per_tab": statistics.fmean(per_tab) if per_tab else 0.0,
        "dropped_per_tab": sum(t.dropped for t in tabs) / len(tabs),
        "p50_ms": latencies[len(latencies) // 2] if latencies else float("nan"),
        "p99_ms": latencies[int(len(latencies) * 0.99)] if latencies else float("nan"),
    }


async def hub_run(base: str, token: str, rate: float) -> dict[str, float]:
    auth = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
    async with httpx.AsyncClient(base_url=base, headers=auth, timeout=30) as api:
        project = (await api.post("/api/projects", json={"name": f"relay-{rate:g}"})).json()
        code = (await api.post("/api/devices/pairings", json={"name": "streamer"})).json()["token"]
        ws_url = base.replace("http", "ws")

        async def open_session() -> None:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                found = [d for d in (await api.get("/api/devices")).json() if d["online"]]
                if found:
                    await api.post(f"/api/projects/{project['id']}/devices/{found[0]['id']}/sessions")
                    return
                await asyncio.sleep(0.05)
            raise RuntimeError("the streamer did not connect")

        tab_urls = [f"{ws_url}/api/projects/{project['id']}/ws"] * TABS
        streamer = [f"{ws_url}/bridge/v1/device", code, project["id"], str(rate)]
        return await measure(tab_urls, auth, streamer, False, open_session)


async def plain_run(port: int, rate: float) -> dict[str, float]:
    url = f"ws://127.0.0.1:{port}"
    return await measure([f"{url}/tab"] * TABS, {}, [f"{url}/device", "-", "-", str(rate)], True)


def sync_run(base: str, token: str, home: Path) -> dict[str, float]:
    auth = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
    api = httpx.Client(base_url=base, headers=auth, timeout=60)
    project = api.post("/api/projects", json={"name": "sync-1000"}).json()
    root = Path(project["path"])
    for i in range(1000):
        (root / f"pkg{i // 100}").mkdir(exist_ok=True)
        (root / f"pkg{i // 100}" / f"m{i}.py").write_text(f"VALUE = {i}\n" * 20)
    code = api.post("/api/devices/pairings", json={"name": "sync"}).json()["token"]
    (home / "code").parent.mkdir(parents=True, exist_ok=True)
    (home / "code").write_text(code)
    agent = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "device_bridge.agent",
            "--server",
            base,
            "--token-file",
            str(home / "code"),
            "--home",
            str(home),
        ],
        cwd=REPO,
        stderr=subprocess.DEVNULL,
    )
    try:
        return asyncio.run(_deploy_twice(base, auth, project, root))
    finally:
        agent.kill()
        agent.wait()


async def _deploy_twice(base: str, auth: dict[str, str], project: dict, root: Path) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=base, headers=auth, timeout=60) as api:
        deadline = time.monotonic() + 30
        while not (
            online := [
                d for d in (await api.get("/api/devices")).json() if d["online"] and d["name"] == "sync"
            ]
        ):
            assert time.monotonic() < deadline, "the agent did not connect"
            await asyncio.sleep(0.05)
        pid = project["id"]
        sid = (await api.post(f"/api/projects/{pid}/devices/{online[0]['id']}/sessions")).json()
        url = base.replace("http", "ws") + f"/api/projects/{pid}/ws"
        async with connect(url, additional_headers=auth) as ws:
            first, first_s = await _deploy(ws, sid["sid"])
            (root / "pkg3" / "m345.py").write_text("VALUE = 'changed'\n")
            second, second_s = await _deploy(ws, sid["sid"])
    return {
        "first_sent": len(first["sent"]),
        "first_s": first_s,
        "second_sent": len(second["sent"]),
        "second_s": second_s,
        "second_bytes": second["bytes"],
    }


async def _deploy(ws, sid: str) -> tuple[dict, float]:
    start = time.perf_counter()
    await ws.send(json.dumps({"v": 1, "channel": "devices", "type": "sync.start", "data": {"sid": sid}}))
    async for frame in ws:
        event = json.loads(frame)
        if event["type"] in ("sync.done", "error"):
            assert event["type"] == "sync.done", event
            return event["data"], time.perf_counter() - start
    raise RuntimeError("the tab socket closed")


def wait_healthy(base: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not start")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port, plain_port = free_port(), free_port()
        server = spawn("serve-hub", str(Path(tmp) / "data"), str(port))
        plain = spawn("serve-plain", str(plain_port))
        base = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(base)
            token = (Path(tmp) / "data" / "token").read_text().strip()
            paced = asyncio.run(hub_run(base, token, 1000))
            flat = asyncio.run(hub_run(base, token, 0))
            baseline = asyncio.run(plain_run(plain_port, 0))
            synced = sync_run(base, token, Path(tmp) / "agent")
        finally:
            for proc in (server, plain):
                proc.terminate()
                proc.wait(10)
    report(paced, flat, baseline, synced)


def report(paced: dict, flat: dict, baseline: dict, synced: dict) -> None:
    ratio = flat["rate_per_tab"] / baseline["rate_per_tab"] if baseline["rate_per_tab"] else 0
    print(
        f"relay, {TABS} tabs, 1,000 samples/s for {SECONDS:g} s: sent {paced['sent']}, "
        f"delivered/tab {paced['delivered_per_tab']:.0f}, latency p50 {paced['p50_ms']:.1f} ms"
        f", p99 {paced['p99_ms']:.1f} ms (target <= 25)"
    )
    print(
        f"relay flat out: {flat['rate_per_tab']:.0f} samples/s per tab "
        f"(dropped/tab {flat['dropped_per_tab']:.0f}); plain websockets relay "
        f"{baseline['rate_per_tab']:.0f}/s per tab; ratio {ratio:.0%} (target >= 50%)"
    )
    print(
        f"sync 1,000 files: first deploy sent {synced['first_sent']} in "
        f"{synced['first_s']:.2f} s; one file changed: sent {synced['second_sent']} "
        f"({synced['second_bytes']} bytes) in {synced['second_s']:.2f} s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("role", nargs="?", default="bench")
    parser.add_argument("args", nargs="*")
    options = parser.parse_args()
    if options.role == "serve-hub":
        serve_hub(Path(options.args[0]), int(options.args[1]))
    elif options.role == "serve-plain":
        serve_plain(int(options.args[0]))
    elif options.role == "stream":
        url, code, project, rate = options.args
        asyncio.run(stream(url, None if code == "-" else code, project, float(rate), SECONDS))
    else:
        main()
