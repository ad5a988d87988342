"""Installing from a remote HTTP catalog against a plain download of the same bytes.

One package holding a 256 MiB model, served over loopback by a static server with Range support
(``tests/fakes/static_http.py``). Each run 3 times, median reported:

* baseline: one streamed GET of the model to disk with urllib3, then its sha256 — what any
  careful client does;
* catalog: ``HttpCatalog.download`` (partial file, fsync, sha256 check, move into the folder);
* resume: the first transfer is cut halfway; the time of the second call, which asks for the
  rest with a ``Range`` request.

Run: ``.venv/bin/python bench/market_download.py``
"""

import hashlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import urllib3

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from server.core.config import Settings  # noqa: E402
from server.core.errors import Unavailable  # noqa: E402
from server.market.package import MANIFEST_NAME, PackageManifest, dump_manifest, file_entry  # noqa: E402
from server.market.remote.base import catalogs_from_settings  # noqa: E402
from tests.fakes.static_http import static_http  # noqa: E402

SIZE = 256 * 1024 * 1024
RUNS = 3
MODEL = "/big/1.0.0/model.mnn"


def write_site(site: Path) -> None:
    folder = site / "big/1.0.0"
    folder.mkdir(parents=True)
    with (folder / "model.mnn").open("wb") as handle:
        for block in range(SIZE // (1 << 20)):
            handle.write(hashlib.sha256(block.to_bytes(8, "big")).digest() * 32768)
    manifest = PackageManifest(id="big", version="1.0.0", name="Big", files=[
        file_entry(folder, "model.mnn", "model")])
    (folder / MANIFEST_NAME).write_text(dump_manifest(manifest))
    (site / "index.json").write_text(json.dumps({"format": 1, "packages": [
        {"id": "big", "versions": [{"version": "1.0.0", "path": "big/1.0.0/"}]}]}))


def baseline(url: str, out: Path) -> float:
    start = time.perf_counter()
    response = urllib3.PoolManager().request("GET", url, preload_content=False)
    with out.open("wb") as handle:
        for chunk in response.stream(1 << 20):
            handle.write(chunk)
    response.release_conn()
    digest = hashlib.sha256()
    with out.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return time.perf_counter() - start


def timed_catalog(root: Path, url: str, run: int, cut: set[str]) -> tuple[float, float]:
    settings = Settings(data_dir=root / f"data-{run}", market_sources=[
        {"name": "bench", "kind": "http", "url": url + "index.json"}])
    [catalog] = catalogs_from_settings(settings)
    catalog.entries()
    out = root / f"out-{run}"
    start = time.perf_counter()
    catalog.download("big", "1.0.0", out)
    whole = time.perf_counter() - start
    shutil.rmtree(out)
    cut.add(MODEL)
    try:
        catalog.download("big", "1.0.0", out)
    except Unavailable:
        pass
    start = time.perf_counter()
    catalog.download("big", "1.0.0", out)
    rest = time.perf_counter() - start
    shutil.rmtree(out)
    shutil.rmtree(root / f"data-{run}")
    return whole, rest


def main() -> None:
    times: dict[str, list[float]] = {"baseline GET + sha256": [], "catalog download": [],
                                     "resume of the second half": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_site(root / "site")
        with static_http(root / "site") as (url, state):
            for run in range(RUNS):
                times["baseline GET + sha256"].append(baseline(url + MODEL[1:], root / "plain"))
                (root / "plain").unlink()
                whole, rest = timed_catalog(root, url, run, state.drop_once)
                times["catalog download"].append(whole)
                times["resume of the second half"].append(rest)
    mib = SIZE / (1 << 20)
    for name, runs in times.items():
        median = statistics.median(runs)
        print(f"{name:28s} median {median:6.2f} s ({mib / median:5.0f} MiB/s of the file); "
              f"runs {', '.join(f'{t:.2f}' for t in runs)}")


if __name__ == "__main__":
    main()
