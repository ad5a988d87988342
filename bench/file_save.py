"""File saves under load, and the server's idle memory.

50 concurrent clients each save their own file 40 times through ``PUT …/files/content`` on a
real ``mnnwb serve`` process: paced (each client once a second, 50 saves/s in all — an editor
saving on every pause of every person, far above what 50 people produce), paced at 250 ms
(200 saves/s, a stress level), and back to back (a throughput test). Baseline, in the
same run: a bare uvicorn app with no auth, middleware or database doing the same atomic write.
Also reports the server's RSS after start-up and after the load.
Targets: p99 ≤ 20 ms, idle RSS ≤ 150 MB.

Run: ``.venv/bin/python bench/file_save.py``
"""

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serverproc import free_port, start_server, stop_server  # noqa: E402

CLIENTS = 50
SAVES = 40
# Seconds between one client's saves; 0 = back to back. BENCH_PACES=1.0 runs one pace only.
PACES = tuple(float(a) for a in os.environ.get("BENCH_PACES", "1.0,0.25,0").split(","))
BODY = "x = 1\n" * 200  # a 1.2 KB source file
BASELINE_APP = textwrap.dedent('''
    import os, sys, tempfile
    from pathlib import Path
    root = Path(os.environ['BASELINE_ROOT'])

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = root / scope["query_string"].decode().split("=", 1)[1]
        fd, tmp = tempfile.mkstemp(dir=root)
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})
''')


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def hammer(base: str, headers: dict[str, str], url_for, interval: float) -> list[float]:
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=CLIENTS)
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits) as client:
        async def one_client(n: int) -> None:
            await asyncio.sleep(interval * n / CLIENTS)
            for _ in range(SAVES):
                started = time.perf_counter()
                try:
                    response = await client.put(url_for(n), json={"content": BODY})
                except httpx.ReadError:
                    # A keep-alive connection the server had just closed: count the retry in.
                    response = await client.put(url_for(n), json={"content": BODY})
                elapsed = time.perf_counter() - started
                latencies.append(elapsed * 1000)
                response.raise_for_status()
                await asyncio.sleep(max(0.0, interval - elapsed))
        await asyncio.gather(*(one_client(n) for n in range(CLIENTS)))
    return latencies


def measure_workbench(tmp: Path) -> tuple[dict[float, list[float]], float, float]:
    proc, base, token = start_server(tmp / "data")
    try:
        headers = {"Authorization": f"Bearer {token}"}
        rss_idle = psutil.Process(proc.pid).memory_info().rss / 2**20
        project = httpx.post(f"{base}/api/projects", json={"name": "bench"}, headers=headers).json()
        files = f"/api/projects/{project['id']}/files/content"
        latencies = {pace: asyncio.run(hammer(base, headers, lambda n: f"{files}?path=f{n}.py", pace))
                     for pace in PACES}
        rss_after = psutil.Process(proc.pid).memory_info().rss / 2**20
    finally:
        stop_server(proc)
    return latencies, rss_idle, rss_after


def measure_baseline(tmp: Path) -> dict[float, list[float]]:
    root = tmp / "baseline"
    root.mkdir()
    (tmp / "baseline_app.py").write_text(BASELINE_APP)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--app-dir", str(tmp), "--port", str(port),
         "--log-level", "warning", "baseline_app:app"],
        stdout=subprocess.DEVNULL,
        env={**os.environ, "BASELINE_ROOT": str(root)},
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.put(f"{base}/?p=warm.py", content=b"x")
            break
        except httpx.TransportError:
            time.sleep(0.05)
    try:
        return {pace: asyncio.run(hammer(base, {}, lambda n: f"/?p=f{n}.py", pace)) for pace in PACES}
    finally:
        stop_server(proc)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        ours, rss_idle, rss_after = measure_workbench(tmp)
        base = measure_baseline(tmp)
    for pace in PACES:
        label = f"every {pace * 1000:.0f} ms" if pace else "back to back"
        print(f"{CLIENTS} clients x {SAVES} saves, {label}:")
        for name, values in (("workbench", ours[pace]), ("bare uvicorn baseline", base[pace])):
            print(f"  {name:24} median {statistics.median(values):7.2f} ms  "
                  f"p99 {percentile(values, 0.99):7.2f} ms")
        ratio = statistics.median(ours[pace]) / statistics.median(base[pace])
        print(f"  median ratio workbench/baseline: {ratio:.2f}")
    print(f"server RSS idle after start: {rss_idle:.0f} MB; after the load: {rss_after:.0f} MB")


if __name__ == "__main__":
    main()
