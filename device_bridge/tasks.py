"""Running coroutines side by side until the first of them ends (standard library only).

A connection runs a few loops at once (read, write, ping, a stop signal); whichever ends first
ends the connection. ``first_of`` is that, once, for the server's websockets and the device hub:
the others are cancelled *and waited for*, so none outlives the connection or hides an error.
"""

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def first_of(*loops: Awaitable[T]) -> T:
    """Run ``loops`` together until one ends; cancel the others and wait for them to end.

    Returns the result of the one that ended first (the first given, if several ended at once),
    or raises its exception; the others' exceptions are dropped. Cancelling the caller cancels
    them all."""
    if not loops:
        raise ValueError("first_of needs at least one awaitable")
    tasks = [asyncio.ensure_future(loop) for loop in loops]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        # Shielded: the caller cancelled again must not cut the loops' own clean-up short.
        await asyncio.shield(asyncio.gather(*tasks, return_exceptions=True))
    return next(task for task in tasks if task in done).result()
