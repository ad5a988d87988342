"""The in-process event hub: services publish, per-tab websockets subscribe.

Producers never touch sockets: they ``emit`` an event model (``device_bridge/tab_events.py``'s
``TabEvent``: its class names the channel and type, its fields are the data; the union of them all
is ``server/api/events.py``). Each project has a sequence counter and a replay buffer so a tab
that reconnects with ``since=SEQ`` gets what it missed. Each subscriber has a bounded queue:
``perf`` samples are dropped (and counted) when a tab is slow; anything else that does not fit
marks the subscriber overflowed, and its socket closes so the tab resumes with ``since=``.
"""

import asyncio
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from device_bridge.tab_events import Channel, TabEvent

PROTOCOL_VERSION = 1
DROPPABLE: frozenset[str] = frozenset({"perf"})


class Envelope(BaseModel):
    """One websocket message, in either direction."""

    v: int = PROTOCOL_VERSION
    seq: int = 0
    channel: Channel
    type: str = Field(min_length=1, max_length=64)
    data: dict[str, Any] = Field(default_factory=dict)
    _text: str | None = PrivateAttr(default=None)

    def text(self) -> str:
        """The message as JSON, made once however many tabs it goes to."""
        if self._text is None:
            self._text = self.model_dump_json()
        return self._text


class Subscription:
    """One tab's view of one project's event stream."""

    def __init__(self, project_id: str, maxsize: int) -> None:
        self.project_id = project_id
        self.queue: asyncio.Queue[Envelope] = asyncio.Queue(maxsize=maxsize)
        self.dropped = 0
        self.overflowed = asyncio.Event()

    def offer(self, event: Envelope) -> None:
        if self.overflowed.is_set():
            return
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            if event.channel in DROPPABLE:
                self.dropped += 1
            else:
                self.overflowed.set()

    def take_dropped(self) -> int:
        count, self.dropped = self.dropped, 0
        return count


def _offer_all(subs: list[Subscription], event: Envelope) -> None:
    for sub in subs:
        sub.offer(event)


class EventHub:
    """Fan-out of per-project events with sequence numbers and a replay buffer."""

    def __init__(self, *, queue_size: int = 1000, replay_size: int = 2000) -> None:
        self._queue_size = queue_size
        self._replay_size = replay_size
        self._lock = threading.Lock()
        self._seq: dict[str, int] = {}
        self._replay: dict[str, deque[Envelope]] = {}
        self._subs: dict[str, set[Subscription]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Remember the server's loop so worker threads can publish safely."""
        self._loop = loop

    def emit(self, project_id: str, event: TabEvent) -> int:
        """Record an event and deliver it to every subscriber; callable from any thread."""
        return self.publish(project_id, event.CHANNEL, event.TYPE, event.payload())

    def publish(self, project_id: str, channel: Channel, type_: str, data: dict[str, Any]) -> int:
        """``emit``'s untyped form, for the hub itself (the producers emit models)."""
        with self._lock:
            seq = self._seq.get(project_id, 0) + 1
            self._seq[project_id] = seq
            event = Envelope(seq=seq, channel=channel, type=type_, data=data)
            if channel not in DROPPABLE:
                buffer = self._replay.setdefault(project_id, deque(maxlen=self._replay_size))
                buffer.append(event)
            subs = list(self._subs.get(project_id, ()))
        self._deliver(subs, event)
        return seq

    def _deliver(self, subs: Iterable[Subscription], event: Envelope) -> None:
        subs = list(subs)
        if not subs:
            return
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            for sub in subs:
                sub.offer(event)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(_offer_all, subs, event)

    def subscribe(self, project_id: str, since: int | None = None) -> tuple[Subscription, bool]:
        """Subscribe, queueing the events after ``since``.

        Returns the subscription and whether the replay was complete (False when the buffer no
        longer holds every event after ``since``; the tab must then reload its state).
        """
        sub = Subscription(project_id, self._queue_size)
        complete = True
        with self._lock:
            self._subs.setdefault(project_id, set()).add(sub)
            if since is not None:
                buffer = list(self._replay.get(project_id, ()))
                current = self._seq.get(project_id, 0)
                missed = [e for e in buffer if e.seq > since]
                oldest = buffer[0].seq if buffer else current + 1
                complete = since >= current or oldest <= since + 1
                for event in missed[-self._queue_size :]:
                    sub.queue.put_nowait(event)
                complete = complete and len(missed) <= self._queue_size
        return sub, complete

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            subs = self._subs.get(sub.project_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.project_id]

    def current_seq(self, project_id: str) -> int:
        with self._lock:
            return self._seq.get(project_id, 0)
