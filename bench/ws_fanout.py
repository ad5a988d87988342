"""Events fanned out to many tabs: the tab sockets' sender as it is, against the sender before
2026-12-04's evening change (two tasks and an ``asyncio.wait`` per event, the JSON made per tab),
in the same run.

    python bench/ws_fanout.py [--projects 200] [--tabs 3] [--events 20] [--rounds 7]

Each of ``--projects`` projects has ``--tabs`` subscribed tab connections whose socket only counts
what it is sent (no network: what is measured is the server's own work per event and tab); every
project gets ``--events`` job-log events of ~100 bytes, published from the loop; a round ends when
every tab has received every event. Medians of ``--rounds``, the two senders alternating.
"""

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.api.ws import TabConnection  # noqa: E402
from server.core.events import Envelope, EventHub  # noqa: E402


class BeforeTabConnection(TabConnection):
    """The sender as it was: a getter task and the overflow task raced with ``asyncio.wait`` for
    every event, and the envelope made JSON for each tab."""

    async def send(self, envelope: Envelope) -> None:
        await self.websocket.send_text(envelope.model_dump_json())

    async def sender(self) -> None:
        overflow = asyncio.create_task(self.sub.overflowed.wait())
        getter: asyncio.Task[Envelope] | None = None
        try:
            while True:
                getter = asyncio.create_task(self.sub.queue.get())
                done, _ = await asyncio.wait({getter, overflow}, return_when=asyncio.FIRST_COMPLETED)
                if overflow in done:
                    return
                await self.send(getter.result())
        finally:
            overflow.cancel()
            if getter is not None:
                getter.cancel()


class CountingSocket:
    def __init__(self, done: asyncio.Event, expected: int, counter: list[int]) -> None:
        self.done, self.expected, self.counter = done, expected, counter

    async def send_text(self, text: str) -> None:
        self.counter[0] += 1
        if self.counter[0] == self.expected:
            self.done.set()


async def one_round(kind: type[TabConnection], projects: int, tabs: int, events: int) -> float:
    hub = EventHub(queue_size=events + 10)
    hub.bind_loop(asyncio.get_running_loop())
    done, counter = asyncio.Event(), [0]
    expected = projects * tabs * events
    senders = []
    for p in range(projects):
        for _ in range(tabs):
            sub, _ = hub.subscribe(f"p{p}")
            tab = kind(CountingSocket(done, expected, counter), sub, hub, 60.0, {})  # type: ignore[arg-type]
            senders.append(asyncio.create_task(tab.sender()))
    await asyncio.sleep(0)
    line = "x" * 80
    started = time.perf_counter()
    for i in range(events):
        for p in range(projects):
            hub.publish(f"p{p}", "log", "job.log", {"job_id": f"j{p}", "offset": i, "next_offset": i + 1,
                                                    "text": line})
        await asyncio.sleep(0)
    await done.wait()
    elapsed = time.perf_counter() - started
    for task in senders:
        task.cancel()
    await asyncio.gather(*senders, return_exceptions=True)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=200)
    parser.add_argument("--tabs", type=int, default=3)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    times: dict[str, list[float]] = {"now": [], "before": []}
    for r in range(args.rounds):
        order = [("now", TabConnection), ("before", BeforeTabConnection)]
        for name, kind in order if r % 2 == 0 else reversed(order):
            times[name].append(asyncio.run(one_round(kind, args.projects, args.tabs, args.events)))
    sends = args.projects * args.tabs * args.events
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:>6}: median {median * 1000:.0f} ms for {sends:,} sends "
              f"({sends / median:,.0f} sends/s, {median / sends * 1e6:.1f} µs a send)")
    print(f"now / before: {statistics.median(times['now']) / statistics.median(times['before']):.2f}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
