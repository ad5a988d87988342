"""What every catalog keeps between refreshes: its packages by (id, version), with how to fetch."""

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from server.core.error_codes import ErrorCode
from server.core.errors import AppError, NotFound
from server.market.package import PackageManifest

log = logging.getLogger(__name__)
Where = TypeVar("Where")
T = TypeVar("T")
CatalogKind = Literal["http", "git", "hub"]


@dataclass(frozen=True)
class Listed(Generic[Where]):
    """One package version: its manifest, the manifest's text, and where its files are."""

    manifest: PackageManifest
    text: str
    where: Where


@dataclass
class Listing(Generic[Where]):
    """A source's packages, re-read when older than ``refresh_seconds``."""

    source: str
    refresh_seconds: float
    load: Callable[[], dict[tuple[str, str], Listed[Where]]]
    retry_seconds: float = 0.0
    _items: dict[tuple[str, str], Listed[Where]] | None = None
    _loaded_at: float = 0.0
    _failure: AppError | None = None
    _failed_at: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def items(self) -> dict[tuple[str, str], Listed[Where]]:
        """The packages; a failed read is answered again from memory for ``retry_seconds``
        (at most ``refresh_seconds``) instead of waiting on the remote once more."""
        with self._lock:
            now = time.monotonic()
            if self._failure is not None and now - self._failed_at < min(self.retry_seconds,
                                                                           self.refresh_seconds):
                raise self._failure
            if self._items is None or now - self._loaded_at >= self.refresh_seconds:
                try:
                    self._items = self.load()
                except AppError as exc:
                    self._failure, self._failed_at = exc, time.monotonic()
                    raise
                self._failure, self._loaded_at = None, time.monotonic()
            return self._items

    def get(self, package_id: str, version: str) -> Listed[Where]:
        found = self.items().get((package_id, version))
        if found is None:
            raise NotFound(f"the catalog {self.source} has no {package_id} {version}",
                           code=ErrorCode.PACKAGE_NOT_FOUND)
        return found


def attempt(source: str, what: str, make: Callable[[], T]) -> T | None:
    """``make()``, or None when it fails: a bad package is logged and left out, the rest list."""
    try:
        return make()
    except AppError as exc:
        log.warning("catalog %s: %s left out: %s", source, what, exc.detail)
        return None


def add_listed(found: dict[tuple[str, str], Listed[Where]], source: str, what: str,
               make: Callable[[], Listed[Where]]) -> None:
    """Add one package version made by ``make`` unless it fails or is offered twice."""
    listed = attempt(source, what, make)
    if listed is not None:
        keep(found, source, listed)


def keep(found: dict[tuple[str, str], Listed[Where]], source: str, listed: Listed[Where]) -> None:
    key = (listed.manifest.id, listed.manifest.version)
    if key in found:
        log.warning("catalog %s: %s %s is offered twice; the first is kept", source, *key)
        return
    found[key] = listed
