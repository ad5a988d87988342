"""A hub catalog: one model repository per package under an organisation of a Hugging Face-style
hub, read with ``huggingface_hub`` (``list_models``, ``list_repo_refs``, ``model_info`` with files
metadata) at the configured endpoint.

A version is a tag (or ``main`` when a repository has none). A repository with ``algorithm.toml``
at its root is that package; one without (as the plain MNN model repositories the MNN team
publishes) gets a manifest made from its file list: the LFS files with the sha256 the hub gives,
the task from its pipeline tag. Files download from the revision's commit with the resumable
downloader; a file the hub gives no sha256 for (a small non-LFS file) is checked against its Git
blob id and its sha256 is computed after download into the ``algorithm.toml`` written with it.
"""

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

import httpx2
from huggingface_hub import hf_hub_url
from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled
from pydantic import ValidationError

from server.core.config import MarketSource
from server.core.error_codes import ErrorCode
from server.core.errors import BadGateway, Unavailable
from server.market.package import (
    MANIFEST_NAME,
    VERSION,
    FileEntry,
    FileRole,
    Metrics,
    PackageManifest,
    dump_manifest,
    parse_manifest,
    sha256_file,
)
from server.market.remote.hubclient import hub_api, probe
from server.market.remote.listing import CatalogKind, Listed, Listing, attempt, keep
from server.market.remote.reasons import reason_of
from server.market.remote.staging import (
    RemoteFile,
    fetch_verified,
    locked_work,
    publish,
    readme_file,
    readme_text,
)
from server.market.remote.transfer import decode_text, download_file, get_document, new_pool

SKIPPED = {".gitattributes"}
WORKERS = 8
ROLES: dict[str, FileRole] = {".mnn": "model", ".onnx": "source-model", ".py": "demo"}


@dataclass(frozen=True)
class Revision:
    repo_id: str
    commit: str
    files: list[RemoteFile]
    made: bool  # the manifest was made from the file list (no algorithm.toml)


class HubCatalog:
    kind: CatalogKind = "hub"

    def __init__(self, source: MarketSource, cache: Path) -> None:
        self.name = source.name
        self._source = source
        self._endpoint = source.url.rstrip("/")
        self._org = source.org or ""
        self._cache = cache
        self._pool = new_pool()
        self._listing: Listing[Revision] = Listing(
            source.name, source.refresh_seconds, self._load, source.retry_seconds)

    def entries(self) -> list[PackageManifest]:
        return [listed.manifest for listed in self._listing.items().values()]

    def _load(self) -> dict[tuple[str, str], Listed[Revision]]:
        api = hub_api(self._endpoint, self._source.timeout)
        with _hub_errors(self.name):
            probe(self._endpoint, self._org)
            repos = [model.id for model in api.list_models(author=self._org)]
        # An organisation holds many repositories, each a few requests: read them side by side.
        with ThreadPoolExecutor(max_workers=WORKERS) as workers:
            per_repo = list(workers.map(partial(self._repo_versions, api), repos))
        found: dict[tuple[str, str], Listed[Revision]] = {}
        for versions in per_repo:
            for listed in versions:
                keep(found, self.name, listed)
        return found

    def _repo_versions(self, api: Any, repo_id: str) -> list[Listed[Revision]]:
        def refs() -> Any:
            with _hub_errors(self.name):
                return api.list_repo_refs(repo_id)

        found = attempt(self.name, repo_id, refs)
        if found is None:
            return []
        tags = [(t.name, t.target_commit) for t in found.tags if re.match(VERSION, t.name)]
        main = [(b.name, b.target_commit) for b in found.branches if b.name == "main"]
        made = (attempt(self.name, f"{repo_id}@{name}",
                        partial(self._read_revision, api, repo_id, name, commit))
                for name, commit in tags or main)
        return [listed for listed in made if listed is not None]

    def _read_revision(self, api: Any, repo_id: str, name: str, commit: str) -> Listed[Revision]:
        with _hub_errors(self.name):
            info = api.model_info(repo_id, revision=commit, files_metadata=True)
        siblings = [s for s in info.siblings or [] if s.rfilename not in SKIPPED]
        paths = {s.rfilename for s in siblings}
        if MANIFEST_NAME in paths:
            url = hf_hub_url(repo_id, MANIFEST_NAME, revision=commit, endpoint=self._endpoint)
            text = decode_text(get_document(self._pool, url, self._source.timeout), url)
            manifest = parse_manifest(text)
            files = [RemoteFile(e.path, e.size, sha256=e.sha256) for e in manifest.files]
            return Listed(manifest, text, Revision(repo_id, commit, files, made=False))
        files = [_remote_file(s) for s in siblings if _plain_path(s.rfilename)]
        manifest = _made_manifest(self._org, repo_id, name, info, files)
        return Listed(manifest, dump_manifest(manifest), Revision(repo_id, commit, files, made=True))

    def readme(self, id: str, version: str) -> str:
        listed = self._listing.get(id, version)
        revision = listed.where
        wanted = readme_file(listed.manifest, revision.files)
        if wanted is None:
            return ""
        url = hf_hub_url(revision.repo_id, wanted.path, revision=revision.commit, endpoint=self._endpoint)
        return readme_text(get_document(self._pool, url, self._source.timeout), wanted, self.name)

    def download(self, id: str, version: str, dest: Path) -> Path:
        listed = self._listing.get(id, version)
        revision = listed.where

        def fetch(wanted: RemoteFile, target: Path) -> None:
            url = hf_hub_url(revision.repo_id, wanted.path, revision=revision.commit, endpoint=self._endpoint)
            download_file(self._pool, url, target, wanted.size, self._source.timeout)

        with locked_work(self._cache, id, version) as work:
            fetch_verified(work, revision.files, fetch, self.name)
            text = listed.text
            if revision.made:
                text = dump_manifest(_with_every_file(listed.manifest, work, revision.files))
            return publish(work, text, dest)


@contextmanager
def _hub_errors(source: str) -> Iterator[None]:
    """The library's failures as our domain errors, naming the catalog."""
    try:
        yield
    except HfHubHTTPError as exc:
        raise BadGateway(f"the hub {source} answered: {str(exc).splitlines()[0]}",
                         code=ErrorCode.CATALOG_ERROR) from None
    except (OfflineModeIsEnabled, httpx2.TransportError) as exc:
        reason = reason_of(exc)
        raise Unavailable(f"cannot reach the hub {source} ({reason}): {exc}",
                          code=ErrorCode.CATALOG_UNREACHABLE, reason=reason) from None
    except (KeyError, TypeError, ValueError) as exc:  # an answer not shaped as the hub's
        raise BadGateway(f"the hub {source} sent an unexpected answer: {exc!r}",
                         code=ErrorCode.CATALOG_ERROR) from None


def _with_every_file(manifest: PackageManifest, work: Path, files: list[RemoteFile]) -> PackageManifest:
    """The made manifest with every downloaded file; sha256 computed for those the hub gave none."""
    entries = [FileEntry(path=f.path, size=f.size, role=_role(f.path),
                         sha256=f.sha256 or sha256_file(work / f.path)) for f in files]
    return manifest.model_copy(update={"files": entries})


def _plain_path(path: str) -> bool:
    try:
        FileEntry(path=path, sha256="0" * 64, size=0)
    except ValueError:
        return False
    return True


def _remote_file(sibling: Any) -> RemoteFile:
    if sibling.lfs is not None:
        return RemoteFile(sibling.rfilename, sibling.lfs.size, sha256=sibling.lfs.sha256)
    return RemoteFile(sibling.rfilename, sibling.size or 0, git_blob=sibling.blob_id)


def _role(path: str) -> FileRole:
    pure = PurePosixPath(path)
    if pure.name.lower() == "readme.md":
        return "readme"
    return ROLES.get(pure.suffix.lower(), "other")


def package_id(repo_id: str) -> str:
    """A package id from a repository name: ``taobao-mnn/Qwen2.5-0.5B-MNN`` → ``qwen2-5-0-5b-mnn``."""
    slug = re.sub(r"[^a-z0-9]+", "-", repo_id.split("/")[-1].lower()).strip("-")
    return slug[:64].rstrip("-") or "model"


def _made_manifest(org: str, repo_id: str, version: str, info: Any,
                   files: list[RemoteFile]) -> PackageManifest:
    tags = info.tags or []
    license_ = next((t.split(":", 1)[1] for t in tags if t.startswith("license:")), "")
    known = [FileEntry(path=f.path, sha256=f.sha256, size=f.size, role=_role(f.path))
             for f in files if f.sha256 is not None]
    try:
        return PackageManifest(
            id=package_id(repo_id), version=version, name=repo_id.split("/")[-1][:200],
            task=(info.pipeline_tag or "")[:200], summary=f"{repo_id}, as the hub lists its files",
            license=license_[:200], authors=[org], files=known,
            metrics=Metrics(size_bytes=sum(f.size for f in files)))
    except ValidationError as exc:  # e.g. more files than a package may list
        raise BadGateway(f"{repo_id}: {str(exc).splitlines()[0]}", code=ErrorCode.BAD_MANIFEST) from None
