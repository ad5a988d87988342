"""The one way tests wait: poll a condition until it holds or a deadline passes.

Tests never sleep for a guessed duration. The deadline is generous because the suite must hold on
a loaded 2-core machine; a condition that holds early returns at once.
"""

import asyncio
import os
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import psutil

T = TypeVar("T")

# A loaded machine (make test-load) may stretch every deadline; the default is already generous.
SCALE = float(os.environ.get("MNNWB_TEST_WAIT_SCALE", "1"))


def wait_until(check: Callable[[], T], timeout: float = 20.0, what: str = "the condition",
               interval: float = 0.05) -> T:
    """Call ``check`` until it returns a truthy value and return that value."""
    deadline = time.monotonic() + timeout * SCALE
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout * SCALE:.0f} s waiting for {what}")
        time.sleep(interval)


def process_running(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie waiting for its reaper counts as ended.

    psutil turns every way a process can vanish while /proc is read (the folder gone, or gone
    between open and read) into NoSuchProcess.
    """
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a thread of its own: a process of the suite that drives a browser has
    Playwright's loop marked running on its main thread."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()
