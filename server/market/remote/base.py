"""The one interface the market lists and installs remote packages through.

Each configured source (``Settings.market_sources``) becomes one ``Catalog``: an HTTP(S)
``index.json`` with its files, a Git repository of packages, or a Hugging Face-style hub
organisation. ``download`` writes nothing into ``dest`` unless every file matched its sha256.
"""

import threading
from pathlib import Path
from typing import Protocol, runtime_checkable

from server.core.config import MarketSource, Settings
from server.market.package import PackageManifest
from server.market.remote.git_repo import GitCatalog
from server.market.remote.http_index import HttpCatalog
from server.market.remote.hub import HubCatalog
from server.market.remote.listing import CatalogKind


@runtime_checkable
class Catalog(Protocol):
    name: str
    kind: CatalogKind

    def entries(self) -> list[PackageManifest]:
        """Every version of every package the source offers (cached for ``refresh_seconds``)."""
        ...

    def readme(self, id: str, version: str) -> str:
        """The text of the version's README (checked against its checksum), or "" if none."""
        ...

    def download(self, id: str, version: str, dest: Path) -> Path:
        """Fill the folder ``dest`` (absent or empty) with ``algorithm.toml`` and every file it
        lists, each verified; on any failure ``dest`` is left as it was."""
        ...


def cache_dir(settings: Settings, source: MarketSource) -> Path:
    """Where a source keeps its index, clone and partial downloads."""
    return settings.data_dir / "market-cache" / source.name


def catalog_for(settings: Settings, source: MarketSource) -> Catalog:
    cache = cache_dir(settings, source)
    if source.kind == "http":
        return HttpCatalog(source, cache)
    if source.kind == "git":
        return GitCatalog(source, cache)
    return HubCatalog(source, cache)


_live: dict[tuple[str, str], Catalog] = {}
_live_lock = threading.Lock()


def catalogs_from_settings(settings: Settings) -> list[Catalog]:
    """The MNN hub (unless turned off), then one catalog per entry of ``MNNWB_MARKET_SOURCES``
    in the order configured.

    The same configuration gives the same objects for the life of the process, so a listing is
    read from the remote once per ``refresh_seconds``, not once per request.
    """
    with _live_lock:
        return [_live_catalog(settings, source) for source in settings.all_market_sources()]


def _live_catalog(settings: Settings, source: MarketSource) -> Catalog:
    key = (str(cache_dir(settings, source)), source.model_dump_json())
    if key not in _live:
        _live[key] = catalog_for(settings, source)
    return _live[key]
