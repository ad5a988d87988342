"""A Git catalog: a repository whose folders ``<id>/<version>/`` each hold an ``algorithm.toml``.

The repository is fetched with dulwich into a bare clone in the data dir and read from its object
store: no working tree is checked out, no hook runs, and only regular files are taken (never a
symlink or a submodule). The URL is the admin's, so the member URL policy does not apply. When
the remote cannot be reached the last fetched commit is still listed.
"""

import logging
import stat
from functools import partial
from pathlib import Path

from dulwich.client import HTTPUnauthorized
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.object_store import tree_lookup_path
from dulwich.objects import S_ISGITLINK, Blob, Commit, ObjectID, Tag, Tree, TreeEntry
from dulwich.refs import Ref
from dulwich.repo import Repo
from urllib3.exceptions import HTTPError

from server.core.config import MarketSource
from server.core.error_codes import ErrorCode
from server.core.errors import AppError, BadGateway, NotFound, Unavailable
from server.gitflow.transport import open_client, redact
from server.gitflow.urlpolicy import UNRESTRICTED
from server.market.package import MANIFEST_NAME, PackageManifest, parse_manifest
from server.market.remote.listing import CatalogKind, Listed, Listing, add_listed
from server.market.remote.staging import (
    RemoteFile,
    fetch_verified,
    locked_work,
    publish,
    readme_file,
    readme_text,
)
from server.market.remote.transfer import decode_text
from server.market.safety import UnsafeEntry

log = logging.getLogger(__name__)
LISTED = Ref(b"refs/catalog/listed")


class GitCatalog:
    kind: CatalogKind = "git"

    def __init__(self, source: MarketSource, cache: Path) -> None:
        self.name = source.name
        self._source = source
        self._cache = cache
        self._repo_dir = cache / "repo.git"
        self._listing: Listing[ObjectID] = Listing(
            source.name, source.refresh_seconds, self._load, source.retry_seconds)

    def entries(self) -> list[PackageManifest]:
        return [listed.manifest for listed in self._listing.items().values()]

    def _open(self) -> Repo:
        if (self._repo_dir / "objects").is_dir():
            return Repo(str(self._repo_dir))
        self._repo_dir.mkdir(parents=True, exist_ok=True)
        return Repo.init_bare(str(self._repo_dir))

    def _fetch(self, repo: Repo) -> None:
        """Fetch the remote and point ``refs/catalog/listed`` at the commit to list."""
        url = self._source.url
        try:
            client, path = open_client(url, None, None, self._source.timeout, UNRESTRICTED)
            try:
                result = client.fetch(path, repo)
            finally:
                client.close()
        except (OSError, GitProtocolError, HangupException, NotGitRepository, HTTPUnauthorized,
                HTTPError) as exc:
            raise Unavailable(f"cannot fetch the catalog {self.name}: {redact(str(exc))}",
                              code=ErrorCode.CATALOG_UNREACHABLE) from None
        refs, symrefs = result.refs, result.symrefs or {}
        wanted = self._source.ref
        names = ([Ref(b"refs/heads/" + wanted.encode()), Ref(b"refs/tags/" + wanted.encode())]
                 if wanted else [symrefs.get(Ref(b"HEAD"), Ref(b"HEAD"))])
        commit = next((refs[n] for n in names if refs.get(n)), None)
        if commit is None:
            raise BadGateway(f"the catalog {self.name} has no {wanted or 'HEAD'}",
                             code=ErrorCode.CATALOG_ERROR)
        peeled = repo[commit]
        while isinstance(peeled, Tag):
            peeled = repo[peeled.object[1]]
        if not isinstance(peeled, Commit):
            raise BadGateway(f"{wanted or 'HEAD'} of the catalog {self.name} is not a commit",
                             code=ErrorCode.CATALOG_ERROR)
        repo.refs[LISTED] = peeled.id

    def _load(self) -> dict[tuple[str, str], Listed[ObjectID]]:
        with self._open() as repo:
            try:
                self._fetch(repo)
            except AppError as exc:
                if LISTED not in repo.refs:
                    raise
                log.warning("catalog %s: listing the last fetched commit: %s", self.name, exc.detail)
            commit = repo[repo.refs[LISTED]]
            assert isinstance(commit, Commit)
            found: dict[tuple[str, str], Listed[ObjectID]] = {}
            for package in _subtrees(repo, commit.tree):
                for version in _subtrees(repo, package.sha):
                    if not _holds_manifest(repo, version.sha):
                        continue
                    what = f"{package.path.decode(errors='replace')}/{version.path.decode(errors='replace')}"
                    add_listed(found, self.name, what,
                               partial(self._read_version, repo, package.path, version.path, version.sha))
            return found

    def _read_version(self, repo: Repo, package: bytes, version: bytes,
                      tree: ObjectID) -> Listed[ObjectID]:
        where = f"{package.decode(errors='replace')}/{version.decode(errors='replace')}"
        text = decode_text(_read_blob(repo, tree, MANIFEST_NAME), f"{where}/{MANIFEST_NAME}")
        manifest = parse_manifest(text)
        if (manifest.id.encode(), manifest.version.encode()) != (package, version):
            raise BadGateway(f"{where}/{MANIFEST_NAME} describes "
                             f"{manifest.id} {manifest.version}", code=ErrorCode.BAD_MANIFEST)
        return Listed(manifest, text, tree)

    def readme(self, id: str, version: str) -> str:
        listed = self._listing.get(id, version)
        files = [RemoteFile(e.path, e.size, sha256=e.sha256) for e in listed.manifest.files]
        wanted = readme_file(listed.manifest, files)
        if wanted is None:
            return ""
        with self._open() as repo:
            return readme_text(_read_blob(repo, listed.where, wanted.path), wanted, self.name)

    def download(self, id: str, version: str, dest: Path) -> Path:
        listed = self._listing.get(id, version)
        files = [RemoteFile(e.path, e.size, sha256=e.sha256) for e in listed.manifest.files]
        with self._open() as repo, locked_work(self._cache, id, version) as work:

            def fetch(wanted: RemoteFile, target: Path) -> None:
                target.write_bytes(_read_blob(repo, listed.where, wanted.path))

            fetch_verified(work, files, fetch, self.name)
            return publish(work, listed.text, dest)


def _subtrees(repo: Repo, tree_id: ObjectID) -> list[TreeEntry]:
    tree = repo[tree_id]
    if not isinstance(tree, Tree):
        return []
    return [item for item in tree.items() if stat.S_ISDIR(item.mode)]


def _holds_manifest(repo: Repo, tree_id: ObjectID) -> bool:
    tree = repo[tree_id]
    return isinstance(tree, Tree) and MANIFEST_NAME.encode() in tree


def _read_blob(repo: Repo, tree: ObjectID, path: str) -> bytes:
    try:
        mode, sha = tree_lookup_path(repo.__getitem__, tree, path.encode())
    except KeyError:
        raise NotFound(f"{path} is missing from the catalog", code=ErrorCode.PACKAGE_FILE_MISSING) from None
    if stat.S_ISLNK(mode) or S_ISGITLINK(mode):
        raise UnsafeEntry(f"{path} is a {'symbolic link' if stat.S_ISLNK(mode) else 'submodule'} "
                          "in the catalog; a package may hold only plain files", entry=path)
    blob = repo[sha]
    if not stat.S_ISREG(mode) or not isinstance(blob, Blob):
        raise BadGateway(f"{path} is not a regular file in the catalog", code=ErrorCode.BAD_MANIFEST)
    return blob.as_raw_string()
