"""The one bounded cache: a thread-safe mapping that keeps its most recently used entries.

Every in-memory cache of the server whose keys are not bounded by the code (trees and commits by
id, files by path, work trees by root) is one of these, so none grows without end and each drops
the entry used least recently. Reading an entry (``get``) counts as using it; ``peek`` does not.
"""

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """At most ``size`` entries; past that, the least recently used are forgotten."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a cache holds at least one entry, not {size}")
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def peek(self, key: K) -> V | None:
        """The value kept for ``key``, or None, leaving the order of use as it is."""
        with self._lock:
            return self._items.get(key)

    def put(self, key: K, value: V) -> list[tuple[K, V]]:
        """Keep ``value`` for ``key`` as the most recently used; the entries this forgot."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            return [self._items.popitem(last=False) for _ in range(len(self._items) - self._size)]

    def pop(self, key: K) -> V | None:
        """Forget ``key``; the value that was kept for it, or None."""
        with self._lock:
            return self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def items(self) -> list[tuple[K, V]]:
        """A copy of the entries, least recently used first."""
        with self._lock:
            return list(self._items.items())

    def values(self) -> list[V]:
        """A copy of the values, least recently used first."""
        with self._lock:
            return list(self._items.values())

    def __contains__(self, key: object) -> bool:
        return key in self._items  # one dict lookup: no lock needed

    def __len__(self) -> int:
        return len(self._items)
