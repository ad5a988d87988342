"""``first_of`` (``device_bridge/tasks.py``): the first loop to end ends them all."""

import asyncio
from typing import TypeVar

import pytest

from device_bridge.tasks import first_of
from tests.waiting import run_async as run

T = TypeVar("T")


class Boom(Exception):
    pass


async def _forever(ended: list[str], name: str) -> None:
    try:
        await asyncio.Event().wait()
    finally:
        await asyncio.sleep(0)  # clean-up that itself awaits: first_of must wait for it
        ended.append(name)


async def _after(gate: asyncio.Event, value: str) -> str:
    await gate.wait()
    return value


def test_the_first_result_is_returned_and_the_others_are_cancelled_and_awaited() -> None:
    async def main() -> tuple[str, list[str]]:
        ended: list[str] = []
        gate = asyncio.Event()
        gate.set()
        result = await first_of(_forever(ended, "a"), _after(gate, "done"), _forever(ended, "b"))
        return result, ended

    result, ended = run(main())
    assert result == "done"
    assert sorted(ended) == ["a", "b"]


def test_the_first_loops_exception_is_raised_after_the_others_ended() -> None:
    async def failing() -> None:
        await asyncio.sleep(0)
        raise Boom("the socket broke")

    async def main(ended: list[str]) -> None:
        await first_of(_forever(ended, "a"), failing())

    ended: list[str] = []
    with pytest.raises(Boom, match="the socket broke"):
        run(main(ended))
    assert ended == ["a"]


def test_cancelling_the_caller_cancels_every_loop() -> None:
    async def main() -> list[str]:
        ended: list[str] = []
        caller = asyncio.ensure_future(first_of(_forever(ended, "a"), _forever(ended, "b")))
        while not caller.done() and len(asyncio.all_tasks()) < 4:  # main, caller, a, b
            await asyncio.sleep(0)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        return ended

    assert sorted(run(main())) == ["a", "b"]


def test_it_needs_something_to_run() -> None:
    with pytest.raises(ValueError, match="at least one"):
        run(first_of())
