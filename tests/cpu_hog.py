"""Run a command while other processes keep every core busy: ``python -m tests.cpu_hog CMD…``.

`make test-load` runs the suite this way, to show it holds on a loaded machine (CI's machine may
be). The hogs spin in pure Python at normal priority and are killed when the command ends.
"""

import multiprocessing
import os
import subprocess
import sys


def spin() -> None:
    while True:
        pass


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.cpu_hog COMMAND [ARG…]", file=sys.stderr)
        return 2
    hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(os.cpu_count() or 2)]
    for hog in hogs:
        hog.start()
    print(f"cpu_hog: {len(hogs)} busy processes beside the command", flush=True)
    try:
        return subprocess.call(argv)
    finally:
        for hog in hogs:
            hog.kill()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
