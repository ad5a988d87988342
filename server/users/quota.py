"""A cap on how many of one kind of thing (jobs, tool runs) each user has active at a time, so
that one member cannot crowd the others out of a shared server (docs/team.md, "Limits").

Counted in memory from this server's start: runs an earlier server left going are not counted.
"""

import threading

from server.core.errors import Conflict


class Quota:
    """Active things by key (a job or run id), each counted against the user who started it."""

    def __init__(self, what: str, code: str, limit: int) -> None:
        self.what = what
        self.code = code
        self.limit = limit
        self._owners: dict[str, str] = {}
        self._lock = threading.Lock()

    def ensure_room(self, user_id: str, count: int) -> None:
        """Refuse (409 with ``code`` and ``limit``) unless ``count`` more would fit."""
        with self._lock:
            self._refuse_beyond(user_id, count)

    def take(self, user_id: str, key: str) -> None:
        with self._lock:
            self._refuse_beyond(user_id, 1)
            self._owners[key] = user_id

    def give_back(self, key: str) -> None:
        with self._lock:
            self._owners.pop(key, None)

    def _refuse_beyond(self, user_id: str, count: int) -> None:
        active = sum(owner == user_id for owner in self._owners.values())
        if active + count > self.limit:
            raise Conflict(f"{self.what} are limited to {self.limit} per user; you have {active} "
                           "going", code=self.code, limit=self.limit)
