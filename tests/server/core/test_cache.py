"""The one bounded cache (``server/core/cache.py``): least recently used entries go first."""

import threading

import pytest

from server.core.cache import BoundedCache


def test_past_its_size_the_least_recently_used_entry_is_forgotten_and_returned() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    assert cache.put("a", 1) == []
    assert cache.put("b", 2) == []
    assert cache.get("a") == 1  # "b" is now the least recently used
    assert cache.put("c", 3) == [("b", 2)]
    assert cache.items() == [("a", 1), ("c", 3)]
    assert "b" not in cache and cache.get("b") is None
    assert len(cache) == 2


def test_peek_reads_without_counting_as_a_use() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.peek("a") == 1
    assert cache.put("c", 3) == [("a", 1)]
    assert cache.values() == [2, 3]


def test_putting_a_kept_key_again_replaces_it_and_makes_it_the_newest() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.put("a", 10) == []
    assert cache.put("c", 3) == [("b", 2)]
    assert cache.items() == [("a", 10), ("c", 3)]


def test_pop_and_clear_forget_entries() -> None:
    cache: BoundedCache[str, int] = BoundedCache(3)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.pop("a") == 1
    assert cache.pop("a") is None
    cache.clear()
    assert len(cache) == 0 and cache.items() == []


def test_a_cache_holds_at_least_one_entry() -> None:
    with pytest.raises(ValueError, match="at least one"):
        BoundedCache(0)


def test_threads_putting_at_once_never_leave_it_past_its_size() -> None:
    cache: BoundedCache[tuple[int, int], int] = BoundedCache(50)
    forgotten: list[list[tuple[tuple[int, int], int]]] = []

    def fill(thread: int) -> None:
        for n in range(2000):
            forgotten.append(cache.put((thread, n), n))
            cache.get((thread, n // 2))

    threads = [threading.Thread(target=fill, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 50
    assert sum(len(f) for f in forgotten) == 4 * 2000 - 50  # every entry kept or returned once
