"""``python -m server.market.builtin.real OUT [ID…]``: build the real pretrained algorithms'
packages into ``OUT`` (each one's folder replaced), all of them or the ids given."""

import importlib
import shutil
import sys
import time
from pathlib import Path

from server.core.fsutil import publish
from server.market.builtin.real import CATALOG
from server.market.builtin.real.build import build_one
from server.modeltools.progress import report


def main(argv: list[str]) -> int:
    if not argv:
        sys.stderr.write("usage: python -m server.market.builtin.real OUT [ID...]\n")
        return 2
    out, wanted = Path(argv[0]).resolve(), set(argv[1:])
    unknown = wanted - {listed.id for listed in CATALOG}
    if unknown:
        sys.stderr.write(f"no real algorithm {', '.join(sorted(unknown))}\n")
        return 2
    chosen = [listed for listed in CATALOG if not wanted or listed.id in wanted]
    out.mkdir(parents=True, exist_ok=True)
    for index, listed in enumerate(chosen):
        report(index / len(chosen), f"building {listed.id}")
        algorithm = importlib.import_module(f"server.market.builtin.real.{listed.module}").ALGORITHM
        partial = out / f".partial-{listed.id}"
        shutil.rmtree(partial, ignore_errors=True)
        start = time.perf_counter()
        manifest = build_one(algorithm, partial)
        # The server lists only whole packages: the finished folder replaces the old one.
        shutil.rmtree(out / listed.id, ignore_errors=True)
        publish(partial, out / listed.id)
        print(f"built {manifest.id} in {time.perf_counter() - start:.1f} s: accuracy "
              f"{manifest.metrics.accuracy}, int8 kept {manifest.metrics.model_extra}", flush=True)
    report(1.0, "done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
