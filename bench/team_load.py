"""A team on one server: N people, each with 3 tabs of their own project, working at once.

    python bench/team_load.py [--users 10,50,200] [--seconds 30] [--pace 5]

For each N a fresh team-mode ``mnnwb serve --team`` process (SQLite, the default) gets N members,
added with the service ``mnnwb user add`` calls, in one process (the CLI costs a process start and
an argon2 hash per name). Then every person, at once, as a browser would:

* arrives ``--arrival`` seconds after the one before (0.2: five a second; 0: all at once),
  signs in (``POST /api/auth/login``), creates a project with a Git repository, opens it in
  3 tabs (3 project websockets, each answering the server's pings) and starts a local job that
  prints a timestamped line every 0.5 s (a training run's log);
* every ``--pace`` seconds (their first at a random offset): saves ``main.py`` from tab 1 and then
  asks for the Git status, as the UI does after a save.

Measured over ``--seconds`` once everyone is set up, per operation, p50 / p99 / max:
``save`` (the PUT), ``save seen`` (PUT sent → the ``files`` event in each of the person's other
2 tabs), ``git status`` (the GET), ``job log`` (the line printed → its event in each of the 3
tabs); also sign-in times, the server process's CPU (cores; its event loop and threads share one
interpreter) and the load generator's own. The load generator is one asyncio process on the same
machine: at high N it competes with the server for the cores, which its CPU figure shows.
"""

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx
import psutil
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import free_port  # noqa: E402

TABS = 3
PASSWORD = "bench-password-"  # noqa: S105 - throwaway accounts; + the person's number
JOB = """import time
end = time.time() + {seconds}
while time.time() < end:
    print(time.time(), flush=True)
    time.sleep(0.5)
"""


def add_users(data_dir: Path, count: int) -> None:
    """The members, added as ``mnnwb user add`` adds them (server.users.service.add_user)."""
    from server import user_cli
    from server.core.config import Settings
    from server.users.service import add_user

    with user_cli.database(Settings(data_dir=data_dir, mode="team")) as session:
        add_user(session, "admin", PASSWORD + "admin", role="admin")
        for n in range(count):
            add_user(session, f"u{n:03d}", f"{PASSWORD}{n}")


def start_server(data_dir: Path, log: Path, trace: Path | None) -> tuple[subprocess.Popen[bytes], str]:
    """``mnnwb serve --team``; with ``trace``, under bench/pool_trace.py (its pool report there)."""
    port = free_port()
    mnnwb = [str(Path(sys.executable).with_name("mnnwb"))]
    if trace:
        mnnwb = [sys.executable, str(Path(__file__).with_name("pool_trace.py")), str(trace)]
    with log.open("wb") as out:
        proc = subprocess.Popen([*mnnwb, "serve", "--team", "--port", str(port), "--data-dir",
                                 str(data_dir)], stdout=out, stderr=subprocess.STDOUT,
                                cwd=Path(__file__).resolve().parents[1])
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not start")


class Samples:
    """Latencies in ms per operation, kept only inside the measured window."""

    def __init__(self) -> None:
        self.values: dict[str, list[float]] = defaultdict(list)
        self.window: tuple[float, float] = (float("inf"), float("inf"))
        self.errors: dict[str, int] = defaultdict(int)

    def add(self, name: str, at: float, ms: float) -> None:
        if self.window[0] <= at <= self.window[1]:
            self.values[name].append(ms)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def tab(url: str, headers: dict[str, str], number: int, samples: Samples,
              saves: dict[str, float], stop: asyncio.Event, ready: asyncio.Event) -> None:
    """One tab's socket: answers pings, times job lines and (in tabs 2 and 3) others' saves."""
    try:
        async with websockets.connect(url, additional_headers=headers, max_size=2**24) as socket:
            ready.set()
            await follow(socket, number, samples, saves, stop)
    except (OSError, websockets.WebSocketException) as exc:
        samples.errors[f"tab socket: {type(exc).__name__}"] += 1
    finally:
        ready.set()


async def follow(socket: websockets.ClientConnection, number: int, samples: Samples,
                 saves: dict[str, float], stop: asyncio.Event) -> None:
    """Reads the tab's events until the run stops."""
    while not stop.is_set():
        try:
            raw = await asyncio.wait_for(socket.recv(), timeout=0.5)
        except TimeoutError:
            continue
        now = time.time()
        event = json.loads(raw)
        kind = (event.get("channel"), event.get("type"))
        if kind == ("sys", "ping"):
            await socket.send(json.dumps({"v": 1, "channel": "sys", "type": "pong", "data": {}}))
        elif event.get("type") == "job.log":
            for line in event["data"]["text"].splitlines():
                samples.add("job log", now, (now - float(line)) * 1000)
        elif kind == ("files", "changed") and number > 0:
            for change in event["data"]["changes"]:
                sent = saves.get(change["path"])
                if sent is not None:
                    samples.add("save seen", now, (now - sent) * 1000)


async def person(n: int, base: str, args: argparse.Namespace, samples: Samples,
                 setup_done: list[asyncio.Event], go: asyncio.Event, stop: asyncio.Event) -> None:
    """One person; a refused step of their setting up is counted and they drop out."""
    try:
        await work(n, base, args, samples, setup_done, go, stop)
    except httpx.HTTPStatusError as exc:
        samples.errors[f"{exc.request.method} {exc.request.url.path.split('/')[2]} "
                       f"{exc.response.status_code}"] += 1
        setup_done[n].set()
    except httpx.TransportError as exc:  # a timeout or a dropped connection, counted likewise
        samples.errors[f"{type(exc).__name__}"] += 1
        setup_done[n].set()


async def work(n: int, base: str, args: argparse.Namespace, samples: Samples,
               setup_done: list[asyncio.Event], go: asyncio.Event, stop: asyncio.Event) -> None:
    limits = httpx.Limits(max_connections=2)
    await asyncio.sleep(n * args.arrival)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as api:
        started = time.perf_counter()
        (await api.post("/api/auth/login", json={"name": f"u{n:03d}", "password": f"{PASSWORD}{n}"})
         ).raise_for_status()
        samples.values["sign-in (setup)"].append((time.perf_counter() - started) * 1000)
        created = await api.post("/api/projects", json={"name": f"p{n}", "template": "empty", "git": True})
        project = created.raise_for_status().json()
        pid = project["id"]
        files = f"/api/projects/{pid}/files/content"
        (await api.put(files, params={"path": "job.py"},
                       json={"content": JOB.format(seconds=args.seconds + 120)})).raise_for_status()
        cookie = "; ".join(f"{k}={v}" for k, v in api.cookies.items())
        headers = {"Cookie": cookie, "Origin": base}
        ws_url = base.replace("http://", "ws://") + f"/api/projects/{pid}/ws"
        saves: dict[str, float] = {}
        readies = [asyncio.Event() for _ in range(TABS)]
        tabs = [asyncio.create_task(tab(ws_url, headers, k, samples, saves, stop, readies[k]))
                for k in range(TABS)]
        await asyncio.gather(*(r.wait() for r in readies))
        job = (await api.post(f"/api/projects/{pid}/jobs", json={
            "backend": "local", "command": "python job.py"})).raise_for_status().json()
        setup_done[n].set()
        await go.wait()
        await asyncio.sleep(random.uniform(0, args.pace))
        edit = 0
        while not stop.is_set():
            edit += 1
            t0 = time.time()
            saves["main.py"] = t0
            response = await api.put(files, params={"path": "main.py"},
                                     json={"content": f"x = {edit}\n" * 40})
            t1 = time.time()
            samples.add("save", t0, (t1 - t0) * 1000)
            status = await api.get(f"/api/projects/{pid}/git/status")
            samples.add("git status", t1, (time.time() - t1) * 1000)
            for name, r in (("save", response), ("git status", status)):
                if r.status_code >= 400:
                    samples.errors[name] += 1
            await asyncio.sleep(max(0.0, args.pace - (time.time() - t0)))
        await api.post(f"/api/jobs/{job['id']}/stop", json={})
        await asyncio.gather(*tabs, return_exceptions=True)


async def level(base: str, server: psutil.Process, users: int, args: argparse.Namespace) -> None:
    samples = Samples()
    go, stop = asyncio.Event(), asyncio.Event()
    setup_done = [asyncio.Event() for _ in range(users)]
    began = time.monotonic()
    people = [asyncio.create_task(person(n, base, args, samples, setup_done, go, stop))
              for n in range(users)]
    # Everyone set up, or dropped out (counted in the errors).
    await asyncio.gather(*(e.wait() for e in setup_done))
    for task in people:
        if task.done() and task.exception():
            raise task.exception()  # type: ignore[misc]
    setup = time.monotonic() - began
    me = psutil.Process()
    server_cpu, my_cpu = sum(server.cpu_times()[:2]), sum(me.cpu_times()[:2])
    samples.window = (time.time() + args.pace, time.time() + args.pace + args.seconds)
    go.set()
    await asyncio.sleep(args.pace + args.seconds)
    server_cores = (sum(server.cpu_times()[:2]) - server_cpu) / (args.pace + args.seconds)
    my_cores = (sum(me.cpu_times()[:2]) - my_cpu) / (args.pace + args.seconds)
    stop.set()
    await asyncio.gather(*people, return_exceptions=True)
    print(f"{users} people x {TABS} tabs: set up in {setup:.1f} s; over {args.seconds} s: server "
          f"{server_cores:.2f} cores, load generator {my_cores:.2f} cores, "
          f"RSS {server.memory_info().rss / 2**20:.0f} MB, load {os.getloadavg()[0]:.1f}")
    for name in ("save", "save seen", "git status", "job log", "sign-in (setup)"):
        values = samples.values.get(name, [])
        if values:
            print(f"  {name:16} n={len(values):6}  p50 {statistics.median(values):8.1f} ms  "
                  f"p99 {percentile(values, 0.99):8.1f} ms  max {max(values):8.1f} ms")
    if samples.errors:
        print(f"  errors: {dict(samples.errors)}")


def run_level(users: int, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="mnnwb-team-load-") as tmp:
        data_dir = Path(tmp) / "data"
        add_users(data_dir, users)
        log = Path(tmp) / "server.log"
        trace = Path(tmp) / "pool.txt" if args.pool_trace else None
        proc, base = start_server(data_dir, log, trace)
        try:
            asyncio.run(level(base, psutil.Process(proc.pid), users, args))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        failures = [line for line in log.read_text(errors="replace").splitlines()
                    if "Error" in line or "Traceback" in line]
        for line in sorted(set(failures))[:8]:
            print(f"  server log: {line[:200]}")
        if trace and trace.exists():
            print("  pool: " + trace.read_text().replace("\n", "\n  "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", default="10,50,200")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--pace", type=float, default=5, help="seconds between one person's saves")
    parser.add_argument("--arrival", type=float, default=0.2,
                        help="seconds between two people's arrivals (0: everyone signs in at once)")
    parser.add_argument("--pool-trace", action="store_true",
                        help="trace the database pool's checkouts (bench/pool_trace.py)")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}, {os.cpu_count()} cores")
    for users in (int(u) for u in args.users.split(",")):
        run_level(users, args)


if __name__ == "__main__":
    main()
