"""The Playground's browser-camera loop, end to end, against the model's own latency.

    python bench/playground_loop.py [--frames N]

A real server, a real device agent process on this machine and Chromium whose fake camera plays
a generated 224×224 ``.y4m``. A playground app classifies each frame with a small classifier (a
torch export with ``dynamic_axes``, converted with MNN) at 224×224 and labels it with the time
its own forward pass took. The panel sends a frame, the app answers, the panel draws it: the
capture→result latency of each frame is read from the panel with the model time of the same
frame. Prints both medians and the goal's ratio: capture→result ≤ 1.5 × model + 10 ms (≤ 1.00
meets it).

Then the same app made slow (a 300 ms sleep per frame): the latency of the first and the last
frames is the same (frames are dropped, not queued) and the dropped count grows.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
import numpy as np  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from serverproc import start_server, stop_server  # noqa: E402

from device_bridge.playground.sources import write_y4m  # noqa: E402
from server.modeltools.runner import Limits, WorkerSpec, run_worker  # noqa: E402
from tests.device_bridge.harness import AgentProcess  # noqa: E402
from tests.fakes import dynamic_models  # noqa: E402
from tests.webui.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

SIZE = 224
APP = '''import os
import time

import numpy as np
import MNN
import MNNCV

F = MNN.expr
kit = MNNCV.Kit()
net = MNN.nn.load_module_from_file(os.path.join(kit.getEnvVars()["workPath"], "classifier.mnn"),
                                   ["image"], ["logits"])
SLOW = os.path.exists("slow")


def on_frame(data, format, width, height, inangle, outangle):
    image = F.placeholder([1, 3, height, width], F.NCHW)
    # a numpy array, not a list: a 224×224 list costs ~10 ms to write, the array ~0.1 ms
    image.write(np.ascontiguousarray((np.asarray(data, np.float32)[..., :3] / 255.0).transpose(2, 0, 1)))
    start = time.perf_counter()
    scores = net.forward(image).read()
    took = (time.perf_counter() - start) * 1000
    if SLOW:
        time.sleep(0.3)
    kit.setLabel(0, "%.3f" % took)
    kit.drawRects([[0, 0, 10, 10]], [str(int(np.argmax(scores)))])


kit.setCamera(on_frame)
'''

COLLECT = """() => {
  window.benchFrames = [];
  const canvas = document.querySelector('[data-testid=playground-canvas]');
  new MutationObserver(() => {
    const stats = document.querySelector('[data-testid=playground-stats]');
    const label = document.querySelector("[data-testid=playground-label][data-index='0']");
    const frame = [stats.dataset.latency, label.textContent, stats.dataset.dropped].map(Number);
    window.benchFrames.push(frame);
  }).observe(canvas, {attributes: true, attributeFilter: ['data-frame']});
}"""


def classifier(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    onnx = dynamic_models.classifier(folder / "classifier.onnx", classes=10)
    target = folder / "classifier.mnn"
    outcome = run_worker(WorkerSpec("convert", {"model": str(onnx), "output": str(target)},
                                    folder / "run-convert", Limits(timeout_s=300)))
    assert outcome.status == "succeeded", outcome.error
    return target


def clip(path: Path) -> Path:
    rng = np.random.default_rng(0)
    blocks = [rng.integers(0, 255, (SIZE // 8, SIZE // 8, 3), dtype=np.uint8) for _ in range(30)]
    frames = [np.repeat(np.repeat(block, 8, 0), 8, 1) for block in blocks]
    return write_y4m(path, frames, fps=30)


def measure(page, frames: int) -> list[list[float]]:
    page.evaluate(COLLECT)
    page.wait_for_function(f"() => window.benchFrames.length >= {frames}", timeout=600_000)
    return page.evaluate("() => window.benchFrames")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=150)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pg-bench-") as tmp:
        root = Path(tmp)
        server, url, token = start_server(root / "data")
        auth = {"Authorization": f"Bearer {token}", "X-MNNWB-CSRF": "1"}
        agent = None
        try:
            pairing = httpx.post(f"{url}/api/devices/pairings", json={"name": "bench"}, headers=auth).json()
            agent = AgentProcess(url, root / "agent", pairing["token"], "bench")
            deadline = time.monotonic() + 120
            while not [d for d in httpx.get(f"{url}/api/devices", headers=auth).json() if d["online"]]:
                assert time.monotonic() < deadline, "the agent did not come online"
                time.sleep(0.2)
            device = httpx.get(f"{url}/api/devices", headers=auth).json()[0]["id"]
            project = httpx.post(f"{url}/api/projects", json={"name": "loop", "template": "empty"},
                                 headers=auth).json()
            folder = Path(project["path"])
            classifier(root / "model").rename(folder / "classifier.mnn")
            (folder / "app.mnnplayground").write_text('{"applicationName": "Loop", "entryFile": "/main.py"}')
            (folder / "main.py").write_text(APP)
            video = clip(root / "clip.y4m")
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
                    *CHROMIUM_ARGS, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                    f"--use-file-for-fake-video-capture={video}"])
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(f"{url}/?token={token}")
                results = {}
                for mode in ("fast", "slow"):
                    if mode == "slow":
                        (folder / "slow").write_text("")
                    page.goto(f"{url}/p/{project['id']}")
                    panel = page.get_by_test_id("playground-panel")
                    panel.get_by_test_id("device-picker").select_option(device)
                    panel.get_by_test_id("playground-start").click()
                    page.wait_for_selector("[data-testid=playground-panel][data-live=true]", timeout=120_000)
                    panel.get_by_test_id("playground-camera").click()
                    results[mode] = measure(page, args.frames if mode == "fast" else 20)
                    panel.get_by_test_id("playground-stop").click()
                    page.wait_for_selector("[data-testid=playground-panel][data-state=idle]", timeout=60_000)
                browser.close()
        finally:
            if agent is not None:
                agent.kill()
            stop_server(server)
    fast = results["fast"][10:]  # the first frames warm the model and the page up
    latency = statistics.median(f[0] for f in fast)
    model = statistics.median(f[1] for f in fast)
    goal = 1.5 * model + 10
    print(f"frames measured: {len(fast)} at {SIZE}×{SIZE}, load {os.getloadavg()[0]:.2f}")
    print(f"capture→result median {latency:.1f} ms; the model's own forward median {model:.2f} ms")
    print(f"goal 1.5 × model + 10 ms = {goal:.1f} ms; ratio {latency / goal:.2f} (≤ 1.00 meets it)")
    slow = results["slow"]
    first, last = statistics.median(f[0] for f in slow[:5]), statistics.median(f[0] for f in slow[-5:])
    print(f"slow model (+300 ms): first 5 frames {first:.0f} ms, last 5 {last:.0f} ms; "
          f"dropped {int(slow[0][2])} → {int(slow[-1][2])}")


if __name__ == "__main__":
    main()
