"""Wake-ups for the job watchers (``watcher.py``): one thread waits on the kernel for every job
at once — inotify for a job's log being written, a pidfd for its process ending — and sets that
job's event. A watcher then sleeps until there is something to read instead of looking at its log
20 times a second: with 200 jobs those 4,000 looks a second kept the server's one core busy
(docs/performance.md, "A team on one server").

A wake-up is only a hint: the watcher still reads the log and asks the process whether it is
alive. Where a hint cannot be had (no inotify, the watch limit reached, no pidfd for the
process), ``Followed.timeout`` is short and the watcher looks as it did before.
"""

import contextlib
import logging
import os
import select
import threading
from dataclasses import dataclass
from pathlib import Path

from server.core.inotify import IN_IGNORED, IN_MODIFY, IN_Q_OVERFLOW, Inotify

log = logging.getLogger(__name__)

POLL_INTERVAL = 0.05  # a watcher's look when nothing tells it of a write: as often as before
EXIT_CHECK = 0.25  # ... when writes are told but not the process's end
SAFETY_CHECK = 1.0  # ... when both are told: a look now and then in case a hint went missing


@dataclass
class Followed:
    """One watcher's registration; ``close`` ends it."""

    wakeups: "Wakeups"
    wake: threading.Event
    wd: int | None = None
    pidfd: int | None = None

    def timeout(self) -> float:
        """How long the watcher may sleep when nothing wakes it."""
        if self.wd is None:
            return POLL_INTERVAL
        return SAFETY_CHECK if self.pidfd is not None else EXIT_CHECK

    def close(self) -> None:
        self.wakeups.unfollow(self)


class Wakeups:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._epoll: select.epoll | None = None
        self._inotify: Inotify | None = None
        self._unavailable = False
        self._logs: dict[int, set[threading.Event]] = {}  # inotify watch -> its watchers' events
        self._exits: dict[int, threading.Event] = {}  # pidfd -> its watcher's event

    def follow(self, log_file: Path, pid: int, wake: threading.Event) -> Followed:
        """Set ``wake`` whenever ``log_file`` is written and once process ``pid`` has ended."""
        followed = Followed(self, wake)
        with self._lock:
            if not self._started():
                return followed
            assert self._inotify is not None and self._epoll is not None
            followed.wd = self._inotify.add(os.fsencode(log_file), IN_MODIFY)
            if followed.wd is not None:
                self._logs.setdefault(followed.wd, set()).add(wake)
            try:
                followed.pidfd = os.pidfd_open(pid)
            except (OSError, AttributeError):  # gone already, or no pidfd on this kernel
                return followed
            self._exits[followed.pidfd] = wake
            self._epoll.register(followed.pidfd, select.EPOLLIN)
        return followed

    def unfollow(self, followed: Followed) -> None:
        with self._lock:
            if followed.wd is not None and (events := self._logs.get(followed.wd)) is not None:
                events.discard(followed.wake)
                if not events:
                    del self._logs[followed.wd]
                    assert self._inotify is not None
                    self._inotify.remove(followed.wd)
            # Only while the pidfd is still this watcher's: one that woke it was closed then, and
            # its number may be another job's by now.
            if followed.pidfd is not None and self._exits.get(followed.pidfd) is followed.wake:
                del self._exits[followed.pidfd]
                self._close_pidfd(followed.pidfd)
            followed.wd = followed.pidfd = None

    def _started(self) -> bool:
        if self._epoll is not None or self._unavailable:
            return not self._unavailable
        try:
            self._inotify = Inotify()
        except OSError as exc:
            log.info("job logs are looked at every %.2f s: %s", POLL_INTERVAL, exc)
            self._unavailable = True
            return False
        self._epoll = select.epoll()
        self._epoll.register(self._inotify.fd, select.EPOLLIN)
        threading.Thread(target=self._run, name="job-wakeups", daemon=True).start()
        return True

    def _run(self) -> None:
        assert self._epoll is not None and self._inotify is not None
        while True:
            ready = self._epoll.poll()
            with self._lock:
                for fd, _ in ready:
                    if fd == self._inotify.fd:
                        self._written()
                    elif (wake := self._exits.pop(fd, None)) is not None:
                        self._close_pidfd(fd)
                        wake.set()

    def _written(self) -> None:
        assert self._inotify is not None
        for wd, mask, _ in self._inotify.events():
            if mask & IN_Q_OVERFLOW:  # writes were lost: every watcher looks
                for events in self._logs.values():
                    for wake in events:
                        wake.set()
                continue
            for wake in self._logs.get(wd, ()):
                wake.set()
            if mask & IN_IGNORED:  # the log was removed, and its watch with it
                self._logs.pop(wd, None)

    def _close_pidfd(self, pidfd: int) -> None:
        assert self._epoll is not None
        with contextlib.suppress(OSError):
            self._epoll.unregister(pidfd)
        os.close(pidfd)


wakeups = Wakeups()
