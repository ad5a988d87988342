"""An HTTP(S) catalog: ``index.json`` (format 1) and a folder per package version beside it.

``{"format": 1, "packages": [{"id", "versions": [{"version", "path": "<folder>/"}]}]}``; each
folder, relative to the index, holds ``algorithm.toml`` and the files it lists (docs/market.md).
"""

import json
from functools import partial
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urljoin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from server.core.config import MarketSource
from server.core.error_codes import ErrorCode
from server.core.errors import BadGateway
from server.market.package import MANIFEST_NAME, PACKAGE_ID, VERSION, PackageManifest, parse_manifest
from server.market.remote.listing import CatalogKind, Listed, Listing, add_listed
from server.market.remote.staging import (
    RemoteFile,
    fetch_verified,
    locked_work,
    publish,
    readme_file,
    readme_text,
)
from server.market.remote.transfer import decode_text, download_file, get_document, new_pool

INDEX_FORMAT = 1


class IndexVersion(BaseModel):
    model_config = ConfigDict(extra="ignore")

    version: str = Field(pattern=VERSION)
    path: str = Field(min_length=1, max_length=1024)

    @field_validator("path")
    @classmethod
    def _inside(cls, value: str) -> str:
        parts = value.rstrip("/").split("/")
        if PurePosixPath(value).is_absolute() or ":" in value or "\\" in value or ".." in parts:
            raise ValueError(f"{value!r} is not a folder relative to the index")
        return value.rstrip("/") + "/"


class IndexPackage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(pattern=PACKAGE_ID)
    versions: list[IndexVersion] = Field(max_length=1000)


class CatalogIndex(BaseModel):
    model_config = ConfigDict(extra="ignore")

    format: int
    packages: list[IndexPackage] = Field(max_length=10_000)


def parse_index(body: bytes, url: str) -> CatalogIndex:
    try:
        index = CatalogIndex.model_validate(json.loads(body))
    except (ValueError, ValidationError) as exc:
        raise BadGateway(f"{url} is not a catalog index: {str(exc).splitlines()[0]}",
                         code=ErrorCode.BAD_INDEX) from None
    if index.format != INDEX_FORMAT:
        raise BadGateway(f"{url} has index format {index.format}; this version reads format {INDEX_FORMAT}",
                         code=ErrorCode.BAD_INDEX)
    return index


class HttpCatalog:
    kind: CatalogKind = "http"

    def __init__(self, source: MarketSource, cache: Path) -> None:
        self.name = source.name
        self._source = source
        self._cache = cache
        self._pool = new_pool()
        self._listing: Listing[str] = Listing(
            source.name, source.refresh_seconds, self._load, source.retry_seconds)

    def entries(self) -> list[PackageManifest]:
        return [listed.manifest for listed in self._listing.items().values()]

    def _load(self) -> dict[tuple[str, str], Listed[str]]:
        url = self._source.url
        index = parse_index(get_document(self._pool, url, self._source.timeout), url)
        found: dict[tuple[str, str], Listed[str]] = {}
        for package in index.packages:
            for entry in package.versions:
                folder = urljoin(url, entry.path)
                add_listed(found, self.name, f"{package.id} {entry.version}",
                           partial(self._read_version, folder, package.id, entry.version))
        return found

    def _read_version(self, folder: str, package_id: str, version: str) -> Listed[str]:
        url = folder + MANIFEST_NAME
        text = decode_text(get_document(self._pool, url, self._source.timeout), url)
        manifest = parse_manifest(text)
        if (manifest.id, manifest.version) != (package_id, version):
            raise BadGateway(f"{folder}{MANIFEST_NAME} is {manifest.id} {manifest.version}, "
                             f"not {package_id} {version} as the index says", code=ErrorCode.BAD_INDEX)
        return Listed(manifest, text, folder)

    def readme(self, id: str, version: str) -> str:
        listed = self._listing.get(id, version)
        wanted = readme_file(listed.manifest, _files(listed.manifest))
        if wanted is None:
            return ""
        url = listed.where + quote(wanted.path)
        return readme_text(get_document(self._pool, url, self._source.timeout), wanted, self.name)

    def download(self, id: str, version: str, dest: Path) -> Path:
        listed = self._listing.get(id, version)
        files = _files(listed.manifest)

        def fetch(wanted: RemoteFile, target: Path) -> None:
            url = listed.where + quote(wanted.path)
            download_file(self._pool, url, target, wanted.size, self._source.timeout)

        with locked_work(self._cache, id, version) as work:
            fetch_verified(work, files, fetch, self.name)
            return publish(work, listed.text, dest)


def _files(manifest: PackageManifest) -> list[RemoteFile]:
    return [RemoteFile(e.path, e.size, sha256=e.sha256) for e in manifest.files]
