"""The log cursor: each line exactly once, whatever the service's time resolution."""

from server.training.cloud.logs import LogCursor, take_new


def stamped(second: int, nanos: int, text: str) -> str:
    return f"2026-01-02T03:04:{second:02d}.{nanos:09d}Z {text}"


def test_lines_after_the_cursor_are_taken_once() -> None:
    first = [stamped(1, 5, "a"), stamped(1, 7, "b")]
    lines, cursor = take_new(first, LogCursor())
    assert lines == ["a", "b"]
    assert cursor.start_time() == "2026-01-02T03:04:01Z"
    # The next answer starts at the cursor's whole second, so it repeats a and b.
    lines, cursor = take_new(first + [stamped(2, 0, "c")], cursor)
    assert lines == ["c"]
    lines, _ = take_new([stamped(2, 0, "c")], cursor)
    assert lines == []


def test_lines_sharing_a_timestamp_are_counted() -> None:
    same = [stamped(3, 0, "x"), stamped(3, 0, "y")]
    lines, cursor = take_new(same[:1], LogCursor())
    assert (lines, cursor.skip) == (["x"], 1)
    lines, cursor = take_new(same, cursor)
    assert (lines, cursor.skip) == (["y"], 2)


def test_unstamped_logs_fall_back_to_counting() -> None:
    lines, cursor = take_new(["one", "two"], LogCursor())
    assert (lines, cursor) == (["one", "two"], LogCursor(skip=2))
    lines, cursor = take_new(["one", "two", "three"], cursor)
    assert (lines, cursor.skip) == (["three"], 3)
