"""The market: every source's packages in one list, a package's card, installing into projects.

Sources are the built-ins, the team registry and the remote catalogs an admin configured
(``MNNWB_MARKET_SOURCES``); each offers ``entries()`` and ``download(id, version, dest)``.
"""

import logging
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Protocol

from sqlmodel import Session

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, NotFound
from server.lineage.models import LineageGraph
from server.market import blobs, builtins, registry
from server.market.models import MarketVersion
from server.market.package import PackageManifest, sha256_file
from server.market.remote.base import Catalog, catalogs_from_settings
from server.market.schemas import MarketCard, MarketEntry, SourceStatus, VersionInfo

log = logging.getLogger(__name__)
LICENSE_FILE = re.compile(r"^(licen[cs]e|copying)(\.(txt|md))?$", re.IGNORECASE)
MAX_LICENSE_BYTES = 200_000


class Source(Protocol):
    name: str

    def entries(self) -> list[PackageManifest]: ...

    def download(self, id: str, version: str, dest: Path) -> Path: ...


def sources(session: Session, settings: Settings) -> list[Source]:
    return [builtins.BuiltinSource(settings), registry.RegistrySource(session, settings),
            *catalogs_from_settings(settings)]


def source_named(session: Session, settings: Settings, name: str) -> Source:
    for source in sources(session, settings):
        if source.name == name:
            return source
    raise NotFound(f"no market source {name!r}", code=ErrorCode.SOURCE_NOT_FOUND)


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Orders ``1.10.0`` after ``1.9.0``; numbers before words at the same place."""
    return tuple((0, int(part)) if part.isdigit() else (1, part)
                 for part in re.split(r"[.+-]", version))


def _entries_of(source: Source, strict: bool) -> list[PackageManifest]:
    try:
        return source.entries()
    except AppError as exc:
        if strict:
            raise
        # One unreachable catalog must not hide the others.
        log.warning("market source %s is unavailable: %s", source.name, exc.detail)
        return []


def _entry(source: str, manifests: list[PackageManifest]) -> MarketEntry:
    ordered = sorted(manifests, key=lambda m: version_key(m.version))
    latest = ordered[-1]
    figures = latest.metrics
    return MarketEntry(
        id=latest.id, name=latest.name, task=latest.task, summary=latest.summary, source=source,
        latest=latest.version, versions=[m.version for m in ordered],
        size_bytes=figures.size_bytes if figures.size_bytes is not None else latest.size_bytes(),
        accuracy=figures.accuracy,
        latency_ms=min((f.median_ms for f in figures.latency), default=None))


def _grouped(manifests: Iterable[PackageManifest]) -> dict[str, list[PackageManifest]]:
    groups: dict[str, list[PackageManifest]] = {}
    for manifest in manifests:
        groups.setdefault(manifest.id, []).append(manifest)
    return groups


def _matches(entry: MarketEntry, q: str, task: str) -> bool:
    text = f"{entry.id} {entry.name} {entry.summary} {entry.task}".casefold()
    return (not q or q.casefold() in text) and (not task or entry.task == task)


def list_entries(session: Session, settings: Settings, q: str = "", task: str = "",
                 source: str = "") -> list[MarketEntry]:
    chosen = [source_named(session, settings, source)] if source else sources(session, settings)
    found = []
    for each in chosen:
        for manifests in _grouped(_entries_of(each, strict=bool(source))).values():
            entry = _entry(each.name, manifests)
            if _matches(entry, q, task):
                found.append(entry)
    return found


def source_statuses(session: Session, settings: Settings) -> list[SourceStatus]:
    """Every source, online with its package count or offline with the reason; a failed
    catalog answers from memory for its ``retry_seconds``, so this costs no second wait."""
    urls = {source.name: source.url for source in settings.all_market_sources()}
    found = []
    for each in sources(session, settings):
        kind = each.kind if isinstance(each, Catalog) else each.name
        status = SourceStatus(name=each.name, kind=kind, url=urls.get(each.name), state="online")
        try:
            status.packages = len(_grouped(each.entries()))
        except AppError as exc:
            status.state, status.detail = "offline", exc.detail
            status.reason = str(exc.extra.get("reason", exc.code))
        found.append(status)
    return found


def find(session: Session, settings: Settings, id: str,
         source: str | None) -> tuple[Source, list[PackageManifest]]:
    """The source offering ``id`` (the named one, or the first that has it) and its versions."""
    chosen = [source_named(session, settings, source)] if source else sources(session, settings)
    for each in chosen:
        manifests = [m for m in _entries_of(each, strict=bool(source)) if m.id == id]
        if manifests:
            return each, sorted(manifests, key=lambda m: version_key(m.version))
    raise NotFound(f"no algorithm {id!r} in the market", code=ErrorCode.PACKAGE_NOT_FOUND)


def version_info(manifest: PackageManifest, row: MarketVersion | None = None) -> VersionInfo:
    return VersionInfo(
        version=manifest.version, metrics=manifest.metrics, files=manifest.files,
        inputs=manifest.inputs, outputs=manifest.outputs, license=manifest.license,
        authors=manifest.authors, demo=manifest.demo,
        published_at=row.published_at if row else None,
        publisher=row.publisher if row else None, deprecated=row.deprecated if row else False,
        lineage=LineageGraph.model_validate(row.lineage) if row and row.lineage else None)


def _readme(source: Source, manifest: PackageManifest, row: MarketVersion | None) -> str:
    if row is not None:
        return row.readme
    if isinstance(source, builtins.BuiltinSource | Catalog):
        return source.readme(manifest.id, manifest.version)
    return ""


def _license_text(settings: Settings, source: Source, manifest: PackageManifest) -> str:
    """The text of the version's license file (``LICENSE``, ``COPYING``…) where this server keeps
    it — the registry's blob store, a built-in's folder — shown only if it matches its sha256;
    "" when the package has none or its files are remote (the card names the file)."""
    entry = next((e for e in manifest.files if LICENSE_FILE.match(PurePosixPath(e.path).name)), None)
    try:
        if entry is None:
            return ""
        if isinstance(source, registry.RegistrySource):
            path = blobs.blob_path(settings, entry.sha256)
        elif isinstance(source, builtins.BuiltinSource):
            path = source.folder(manifest.id, manifest.version) / entry.path
        else:
            return ""
    except AppError:  # a built-in not built yet
        return ""
    if not path.is_file() or path.stat().st_size > MAX_LICENSE_BYTES or sha256_file(path) != entry.sha256:
        return ""
    return path.read_text(encoding="utf-8", errors="replace")


def card(session: Session, settings: Settings, id: str, source: str | None) -> MarketCard:
    chosen, manifests = find(session, settings, id, source)
    rows = ({row.version: row for row in registry.versions(session, id)}
            if chosen.name == registry.NAME else {})
    entry = _entry(chosen.name, manifests)
    latest = manifests[-1]
    return MarketCard(
        **entry.model_dump(exclude={"versions"}),
        readme=_readme(chosen, latest, rows.get(latest.version)),
        license_text=_license_text(settings, chosen, latest),
        versions=[version_info(m, rows.get(m.version)) for m in reversed(manifests)])


def published(row: MarketVersion) -> VersionInfo:
    """A registry version as the API answers it."""
    return version_info(PackageManifest.model_validate(row.manifest), row)
