"""The job watchers' wake-ups (``server/training/wakeups.py``): a write to a job's log and the end
of its process each set the watcher's event, so a watcher sleeps instead of polling."""

import os
import subprocess
import sys
import threading
from pathlib import Path

from server.training.wakeups import EXIT_CHECK, POLL_INTERVAL, SAFETY_CHECK, Wakeups
from tests.waiting import wait_until


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)


def _end(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.communicate()


def test_a_write_to_the_log_and_the_process_s_end_each_wake_the_watcher(tmp_path: Path) -> None:
    log = tmp_path / "output.log"
    log.touch()
    proc, wake, wakeups = _sleeper(), threading.Event(), Wakeups()
    followed = wakeups.follow(log, proc.pid, wake)
    try:
        assert followed.timeout() == SAFETY_CHECK  # both hints had: no polling
        assert not wake.is_set()
        with log.open("ab") as out:
            out.write(b"epoch 1\n")
        wait_until(wake.is_set, what="the write to wake the watcher")
        wake.clear()
        assert proc.stdin is not None
        proc.stdin.close()  # the process reads to the end of its input, then ends
        proc.wait()
        wait_until(wake.is_set, what="the process's end to wake the watcher")
    finally:
        followed.close()
        _end(proc)
    assert followed.wd is None and followed.pidfd is None


def test_two_watchers_of_one_log_are_both_woken_and_one_leaving_keeps_the_other(tmp_path: Path) -> None:
    log = tmp_path / "output.log"
    log.touch()
    proc, wakeups = _sleeper(), Wakeups()
    first, second = threading.Event(), threading.Event()
    one, two = wakeups.follow(log, proc.pid, first), wakeups.follow(log, proc.pid, second)
    try:
        one.close()
        log.write_bytes(b"a line\n")
        wait_until(second.is_set, what="the remaining watcher to be woken")
        assert not first.is_set()
    finally:
        two.close()
        _end(proc)


def test_without_a_pidfd_or_a_log_watch_the_watcher_looks_as_often_as_before(tmp_path: Path) -> None:
    wakeups = Wakeups()
    gone = wakeups.follow(tmp_path / "no-such.log", 2**22 + 12345, threading.Event())  # no such pid
    assert (gone.wd, gone.pidfd) == (None, None)
    assert gone.timeout() == POLL_INTERVAL
    log = tmp_path / "output.log"
    log.touch()
    written_only = wakeups.follow(log, 2**22 + 12345, threading.Event())
    assert written_only.wd is not None and written_only.pidfd is None
    assert written_only.timeout() == EXIT_CHECK
    gone.close()
    written_only.close()


def test_a_watcher_leaving_after_its_process_ended_keeps_the_next_job_s_wake_up(tmp_path: Path) -> None:
    """An ended process's pidfd is closed when it wakes its watcher, and the next job's pidfd can
    take the same number: the first watcher leaving afterwards must not take the second's wake-up."""
    log = tmp_path / "output.log"
    log.touch()
    wakeups = Wakeups()
    ended, running = _sleeper(), _sleeper()
    first, second = threading.Event(), threading.Event()
    one = wakeups.follow(log, ended.pid, first)
    number = one.pidfd
    assert number is not None
    _end(ended)
    wait_until(first.is_set, what="the first process's end to wake its watcher")
    fillers = []  # the free numbers below it taken, so the kernel gives the next pidfd that one
    while (fd := os.open(os.devnull, os.O_RDONLY)) < number:
        fillers.append(fd)
    os.close(fd)
    two = wakeups.follow(log, running.pid, second)
    try:
        assert two.pidfd == number
        one.close()
        assert not second.is_set()
        _end(running)
        wait_until(second.is_set, what="the second process's end to wake its watcher")
    finally:
        two.close()
        _end(running)
        for fd in fillers:
            os.close(fd)
