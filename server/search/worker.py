"""The matching of a search or replace, in a process of its own on a CPU-time budget.

Python's ``re`` backtracks: ``(a+)+b`` against a long run of ``a`` takes longer than the age of
the universe, and nothing interrupts it while it runs (it holds the GIL). So the server never
matches in its own process: it starts this module as a separate Python (``python -I -S``, see
``server/search/engine.py``) for each search or replace, and the kernel ends it when it has
used its CPU time: an ``ITIMER_PROF`` timer, re-armed as input arrives, allows ``cpu_seconds``
plus one second for every ``bytes_per_second`` of input read so far. ``SIGPROF``'s default
action ends the process, which the server reports as ``422 regex_too_slow``. The budget is CPU
time, not wall time: a loaded machine does not make a fair pattern fail, and waiting for
``git grep``'s next lines costs nothing.

Protocol, on stdin and stdout: the first line is the job (JSON: ``query`` as ``[q, regex, case,
word]``, ``mode``, ``replacement``, ``limit``, ``cpu_seconds``, ``bytes_per_second``).

* ``search``: the rest of stdin is ``git grep -n -z`` output; each read of it is answered with
  the ``SearchMatch`` JSON lines of its matches, at most ``limit`` in all, then the process ends.
* ``preview``, ``apply``: each line in is a file's text as a JSON string; each line out is
  ``{"count", "changes": [[line, before, after], …]}`` (``apply`` adds the new ``text``), or
  ``{"error": [detail, code]}`` when the replacement cannot be made in that file.
"""

import json
import signal
import sys
import time
from typing import BinaryIO

from server.core.errors import Invalid
from server.search.matching import Query, compile_pattern, matches_in, replacer, substitute

READ_SIZE = 256 * 1024


class Budget:
    """CPU seconds this process may have used so far; the kernel ends it past them."""

    def __init__(self, seconds: float, bytes_per_second: float) -> None:
        self.allowed = seconds
        self.rate = bytes_per_second
        # An ignored signal stays ignored across exec: the default action must be set here.
        signal.signal(signal.SIGPROF, signal.SIG_DFL)
        self._arm()

    def allow(self, size: int) -> None:
        """More input: more time, in proportion."""
        self.allowed += size / self.rate
        self._arm()

    def _arm(self) -> None:
        left = self.allowed - time.process_time()
        signal.setitimer(signal.ITIMER_PROF, max(left, 0.001))


def search(job: dict, budget: Budget, stdin: BinaryIO, stdout: BinaryIO) -> None:
    pattern = compile_pattern(Query(*job["query"]))
    left, pending = job["limit"], b""
    while left > 0 and (chunk := stdin.read1(READ_SIZE)):  # type: ignore[attr-defined]
        budget.allow(len(chunk))
        *lines, pending = (pending + chunk).split(b"\n")
        found = matches_in(lines, pattern, left)
        left -= len(found)
        if found:
            stdout.write(b"\n".join(found) + b"\n")
            stdout.flush()


def replace(job: dict, budget: Budget, stdin: BinaryIO, stdout: BinaryIO) -> None:
    query = Query(*job["query"])
    pattern, replace_match = compile_pattern(query), replacer(query, job["replacement"])
    while line := stdin.readline():
        budget.allow(len(line))
        try:
            text, changes, count = substitute(json.loads(line), pattern, replace_match)
            answer: dict = {"count": count, "changes": changes}
            if job["mode"] == "apply":
                answer["text"] = text
        except Invalid as exc:
            answer = {"error": [exc.detail, exc.code]}
        stdout.write(json.dumps(answer).encode() + b"\n")
        stdout.flush()


def main() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    job = json.loads(stdin.readline())
    budget = Budget(job["cpu_seconds"], job["bytes_per_second"])
    (search if job["mode"] == "search" else replace)(job, budget, stdin, stdout)


if __name__ == "__main__":
    main()
