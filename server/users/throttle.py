"""Login rate limiting: failed attempts per user name and per client address, in a time window."""

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable

from server.core.error_codes import ErrorCode
from server.core.errors import AppError


class Throttled(AppError):
    status = 429
    code = ErrorCode.THROTTLED


class LoginThrottle:
    """Counts failures in a sliding window; a success clears the name's count, not the address's."""

    def __init__(self, per_name: int, per_address: int, window: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_name = per_name
        self.per_address = per_address
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def _recent(self, key: str) -> deque[float]:
        stamps = self._failures[key]
        horizon = self.clock() - self.window
        while stamps and stamps[0] <= horizon:
            stamps.popleft()
        return stamps

    def check(self, name: str, address: str) -> None:
        """Refuse before the password is even looked at when either limit is reached."""
        with self._lock:
            for key, limit in ((f"n:{name.lower()}", self.per_name),
                               (f"a:{address}", self.per_address)):
                stamps = self._recent(key)
                if len(stamps) >= limit:
                    wait = int(stamps[0] + self.window - self.clock()) + 1
                    raise Throttled("too many failed logins; try again later", retry_after=wait)

    def failed(self, name: str, address: str) -> None:
        now = self.clock()
        with self._lock:
            self._failures[f"n:{name.lower()}"].append(now)
            self._failures[f"a:{address}"].append(now)

    def succeeded(self, name: str) -> None:
        with self._lock:
            self._failures.pop(f"n:{name.lower()}", None)
