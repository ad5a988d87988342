"""Session resources that take long to make — a Ray head, the exported language models, the
PostgreSQL server, the built-in algorithms — made on a second core while the first runs tests.

Run as one process (``pytest``), the suite keeps one core busy. When the collected tests are
known, each resource that some test needs starts being made in a background thread; the fixture
that hands it out waits for it. Each one with something to stop (a process, a server) is stopped
right after the last test that needs it, not at the end of the session, so it takes no CPU while
unrelated tests run; the stop runs in the background, and the next test does not wait for it.
``make test`` runs two processes (pytest-xdist): which tests a process will get is not known in
advance, so there each resource is made when first asked for, and the tests sharing the costliest
ones are one group (``SHARED`` in tests/conftest.py), sent to one process.
"""

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import pytest

Maker = Callable[[ExitStack], Any]


@dataclass
class _Resource:
    make: Maker
    names: tuple[str, ...]  # the fixture handing it out, and any asking for it at run time
    ahead: int | None = None
    start_at: int = 0
    stack: ExitStack = field(default_factory=ExitStack)
    future: "Future[Any] | None" = None
    last_user: str | None = None


class EarlyResources:
    def __init__(self) -> None:
        self._resources: dict[str, _Resource] = {}
        self._order: dict[str, int] = {}
        self._starting = True
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="early")
        self._stopping: list[Future[None]] = []
        self._closed = False

    def register(self, name: str, make: Maker, also: tuple[str, ...] = (),
                 ahead: int | None = None) -> None:
        """``make`` builds the resource, entering whatever must be stopped later into the stack;
        ``also``: fixtures that ask for it by name at run time (not in a test's fixture names);
        ``ahead``: start it only this many tests before the first that needs it (a resource that
        costs CPU while it waits), rather than at once."""
        self._resources[name] = _Resource(make, (name, *also), ahead)

    def plan(self, items: Iterable[pytest.Item], start: bool = True) -> None:
        """Note the last test needing each resource and (``start``) start every resource a
        collected test needs, or arrange to start it ``ahead`` tests before its first user."""
        self._order = {}
        for index, item in enumerate(items):
            self._order[item.nodeid] = index
            used = set(getattr(item, "fixturenames", ()))
            for resource in self._resources.values():
                if used.intersection(resource.names):
                    if resource.last_user is None and resource.ahead is not None:
                        resource.start_at = max(0, index - resource.ahead)
                    resource.last_user = item.nodeid
        self._starting = start
        self._start_due(0)

    def get(self, name: str) -> Any:
        return self._start(name).result()

    def done_with(self, item: pytest.Item) -> None:
        """Stop the resources ``item`` was the last user of, in the background: the next test
        need not wait for it (the Ray head takes about 10 s to exit); ``close`` waits."""
        for resource in self._resources.values():
            if resource.last_user == item.nodeid:
                if self._closed:  # the session's end came first (its last test): stopped already
                    self._close(resource)
                else:
                    self._stopping.append(self._pool.submit(self._close, resource))
        self._start_due(self._order.get(item.nodeid, -1) + 1)

    def _start_due(self, index: int) -> None:
        if not self._starting:
            return
        for name, resource in self._resources.items():
            if resource.last_user is not None and resource.start_at <= index:
                self._start(name)

    def close(self) -> None:
        self._closed = True
        for stopping in self._stopping:
            stopping.result()
        for resource in self._resources.values():
            self._close(resource)
        self._pool.shutdown(wait=True)

    def _start(self, name: str) -> "Future[Any]":
        resource = self._resources[name]
        if resource.future is None:
            resource.future = self._pool.submit(resource.make, resource.stack)
        return resource.future

    @staticmethod
    def _close(resource: _Resource) -> None:
        if resource.future is not None:
            resource.future.exception()  # made (or failed) before anything is stopped
        resource.stack.close()
