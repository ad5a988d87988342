"""Market packages cannot plant repositories or links: a ``.git`` entry (any case, any depth), a
path leaving the package, a symlink, hard link, device, FIFO or socket is refused at install with
``422 unsafe_package_entry`` naming it, from every kind of source, and nothing is written to any
project, the staging folder or a catalog's work folder."""

import hashlib
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from dulwich.index import commit_tree
from dulwich.objects import Blob, Commit
from dulwich.repo import Repo
from fastapi.testclient import TestClient

from server.core.config import REPO_ROOT, Settings
from server.market.package import PackageManifest, dump_manifest, file_entry
from server.market.safety import UnsafeEntry, check_path
from tests.conftest import make_client
from tests.fakes.static_http import static_http

UNSAFE_PATHS = [".git/config", ".GIT/hooks/post-checkout", "models/.git/config", "a/b/.Git",
                ".git./config", "git~1/config", "GIT~1/HEAD", "/etc/passwd", "../outside",
                "a/../../b", "C:/x", "a\\b", "a//b", "./a"]


@pytest.mark.parametrize("path", UNSAFE_PATHS)
def test_unsafe_paths_are_refused_naming_them(path: str) -> None:
    with pytest.raises(UnsafeEntry) as refused:
        check_path(path)
    assert refused.value.extra["entry"] == path and path in refused.value.detail
    assert (refused.value.status, refused.value.code) == (422, "unsafe_package_entry")


# Each ordinary path next to the unsafe one it is nearly: only the second is refused.
NEAR_MISSES = [(".gitignore", ".git/ignore"), ("git/x", ".git/x"),
               (".github/workflows/ci.yml", ".git/workflows/ci.yml"), ("x.git", "x/.git"),
               ("a/.gitmodules-notes", "a/.git/modules-notes"),
               ("weights/model.mnn", "weights/../model.mnn")]


@pytest.mark.parametrize(("path", "unsafe"), NEAR_MISSES, ids=[path for path, _ in NEAR_MISSES])
def test_ordinary_paths_pass(path: str, unsafe: str) -> None:
    assert check_path(path) is None
    with pytest.raises(UnsafeEntry) as refused:
        check_path(unsafe)
    assert refused.value.extra["entry"] == unsafe


def _nothing_written(client: TestClient, settings: Settings, projects_before: list) -> None:
    assert client.get("/api/projects").json() == projects_before
    staging = settings.data_dir / "market" / "staging"
    assert not staging.exists() or list(staging.iterdir()) == []


def _no_work_folder(settings: Settings, source: str) -> None:
    work = settings.data_dir / "market-cache" / source / "files"
    assert not work.exists() or [p.name for p in work.iterdir() if p.is_dir()] == []


def _refused(client: TestClient, url: str, body: dict, entry: str) -> str:
    """The detail of the refusal, which must name ``entry``."""
    response = client.post(url, json=body)
    assert response.status_code == 422, response.text
    assert response.json()["code"] == "unsafe_package_entry"
    assert response.json()["entry"] == entry and entry in response.json()["detail"]
    return str(response.json()["detail"])


# --- A folder source: the built-in packages, as they lie on disk ---------------------------------

def _plant(folder: Path, kind: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Put an unsafe entry of ``kind`` into a package folder; the entry the refusal names."""
    if kind == "git folder":
        (folder / ".git").mkdir()
        (folder / ".git" / "config").write_text("[core]\n\thooksPath = hooks\n")
        return ".git"
    if kind == "nested upper-case git file":
        (folder / "samples" / ".GIT").write_text("gitdir: /somewhere/else\n")
        return "samples/.GIT"
    if kind == "listed symlink":
        (folder / "README.md").unlink()
        (folder / "README.md").symlink_to("/etc/hostname")
        return "README.md"
    if kind == "folder symlink":
        (folder / "hooks").symlink_to(folder / "samples", target_is_directory=True)
        return "hooks"
    if kind == "hard link":
        os.link(folder / "model.mnn", folder / "hard.mnn")
        return "hard.mnn"
    if kind == "fifo":
        os.mkfifo(folder / "pipe")
        return "pipe"
    if kind == "socket":
        monkeypatch.chdir(folder)  # a socket's path must be short: bind it by a relative name
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind("sock")
        return "sock"
    os.mknod(folder / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    return "null"


FOLDER_KINDS = ["git folder", "nested upper-case git file", "listed symlink", "folder symlink",
                "hard link", "fifo", "socket"]
# Making a device node needs root (CAP_MKNOD); the check is the same for every non-regular file.
FOLDER_KINDS += ["device"] if os.geteuid() == 0 else []


@pytest.mark.parametrize("target", ["new", "existing"])
@pytest.mark.parametrize("kind", FOLDER_KINDS)
def test_a_builtin_folder_with_an_unsafe_entry_is_refused(
        client: TestClient, settings: Settings, builtins_ready: Path, kind: str, target: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    entry = _plant(builtins_ready / "digits", kind, monkeypatch)
    if target == "existing":
        project = client.post("/api/projects", json={"name": "p", "template": "empty"}).json()
        before = sorted(p.name for p in Path(project["path"]).iterdir())
        body = {"project_id": project["id"]}
    else:
        body = {"new_project": "planted"}
    projects_before = client.get("/api/projects").json()
    _refused(client, "/api/market/digits/versions/1.0.0/install", body, entry)
    _nothing_written(client, settings, projects_before)
    if target == "existing":
        assert sorted(p.name for p in Path(project["path"]).iterdir()) == before


# --- An HTTP catalog: paths listed in its algorithm.toml ------------------------------------------

def _listing_package(folder: Path, unsafe: str) -> None:
    """A package whose algorithm.toml lists ``unsafe`` beside a model, both served as files."""
    folder.mkdir(parents=True)
    (folder / "model.mnn").write_bytes(b"weights")
    (folder / unsafe).parent.mkdir(parents=True, exist_ok=True)
    (folder / unsafe).write_text("[core]\n\tfsmonitor = touch /tmp/owned\n")
    manifest = PackageManifest(id="evil", version="1.0.0", name="Evil", files=[
        file_entry(folder, "model.mnn", "model"), file_entry(folder, unsafe, "other")])
    (folder / "algorithm.toml").write_text(dump_manifest(manifest))


@pytest.mark.parametrize("unsafe", [".GIT/config", "models/.git/config", "git~1/config"])
def test_a_catalog_listing_a_git_path_is_refused_before_any_file_is_fetched(
        tmp_path: Path, unsafe: str) -> None:
    site = tmp_path / "site"
    _listing_package(site / "evil" / "1.0.0", unsafe)
    (site / "index.json").write_text(
        '{"format": 1, "packages": [{"id": "evil", "versions": '
        '[{"version": "1.0.0", "path": "evil/1.0.0/"}]}]}')
    with static_http(site) as (url, state):
        settings = Settings(data_dir=tmp_path / "data", webui_dist=REPO_ROOT / "webui" / "dist",
                            market_sources=[{"name": "web", "kind": "http",
                                             "url": url + "index.json", "refresh_seconds": 0}])
        with make_client(settings) as client:
            projects_before = client.get("/api/projects").json()
            _refused(client, "/api/market/evil/versions/1.0.0/install",
                     {"source": "web", "new_project": "planted"}, unsafe)
            _nothing_written(client, settings, projects_before)
    fetched = {path for path, _ in state.requests}
    assert fetched == {"/index.json", "/evil/1.0.0/algorithm.toml"}
    _no_work_folder(settings, "web")


# --- A Git catalog: tree entries that are links ---------------------------------------------------

def _git_catalog(bare: Path, files: dict[str, tuple[int, bytes]], listed: dict[str, bytes]) -> None:
    """Commit ``evil/1.0.0/`` with ``files`` (path → mode, content) and an algorithm.toml listing
    ``listed`` (path → the content its sha256 is of), built object by object as a hostile
    publisher could."""
    manifest = PackageManifest.model_validate({
        "id": "evil", "version": "1.0.0", "name": "Evil",
        "files": [{"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
                  for path, data in listed.items()]})
    entries = {**files, "algorithm.toml": (0o100644, dump_manifest(manifest).encode())}
    repo = Repo.init_bare(str(bare), mkdir=True)
    with repo:
        blobs = []
        for path, (mode, data) in entries.items():
            blob = Blob.from_string(data)
            if mode != 0o160000:
                repo.object_store.add_object(blob)
            sha = blob.id if mode != 0o160000 else b"1" * 40
            blobs.append((f"evil/1.0.0/{path}".encode(), sha, mode))
        commit = Commit()
        commit.tree = commit_tree(repo.object_store, blobs)
        commit.author = commit.committer = b"Evil <evil@example.com>"
        commit.commit_time = commit.author_time = 1_700_000_000
        commit.commit_timezone = commit.author_timezone = 0
        commit.message = b"packages\n"
        repo.object_store.add_object(commit)
        repo.refs[b"refs/heads/main"] = commit.id
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")


@pytest.fixture
def git_client(tmp_path: Path) -> Iterator[tuple[TestClient, Settings, Path]]:
    settings = Settings(data_dir=tmp_path / "data", webui_dist=REPO_ROOT / "webui" / "dist",
                        market_sources=[{"name": "pkgs", "kind": "git", "refresh_seconds": 0,
                                         "url": (tmp_path / "pkgs.git").as_uri()}])
    with make_client(settings) as client:
        yield client, settings, tmp_path / "pkgs.git"


@pytest.mark.parametrize("mode, kind", [(0o120000, "symbolic link"), (0o160000, "submodule")])
def test_a_git_catalog_entry_that_is_a_link_is_refused(
        git_client: tuple[TestClient, Settings, Path], mode: int, kind: str) -> None:
    client, settings, bare = git_client
    model = b"weights"
    _git_catalog(bare, {"model.mnn": (0o100644, model), "hooks": (mode, b"/etc")},
                 {"model.mnn": model, "hooks": b"/etc"})
    projects_before = client.get("/api/projects").json()
    detail = _refused(client, "/api/market/evil/versions/1.0.0/install",
                      {"source": "pkgs", "new_project": "planted"}, "hooks")
    assert kind in detail
    _nothing_written(client, settings, projects_before)
    _no_work_folder(settings, "pkgs")


def test_a_git_catalog_listing_a_git_folder_is_refused(
        git_client: tuple[TestClient, Settings, Path]) -> None:
    client, settings, bare = git_client
    config = b"[core]\n\tfsmonitor = touch /tmp/owned\n"
    _git_catalog(bare, {"model.mnn": (0o100644, b"w"), "sub/.Git/config": (0o100644, config)},
                 {"model.mnn": b"w", "sub/.Git/config": config})
    projects_before = client.get("/api/projects").json()
    _refused(client, "/api/market/evil/versions/1.0.0/install",
             {"source": "pkgs", "new_project": "planted"}, "sub/.Git/config")
    _nothing_written(client, settings, projects_before)
