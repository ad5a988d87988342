"""A Git catalog (``<id>/<version>/algorithm.toml`` folders) fetched from a real ``git daemon``."""

from pathlib import Path

import pytest

from server.core.config import Settings
from server.market.package import TamperedFile, read_manifest, verify_folder
from server.market.remote.base import Catalog, catalogs_from_settings
from tests.fakes.git_remotes import bare_repo, git, git_daemon
from tests.server.market.remote_packages import FILES, write_package


def publish_repo(base: Path, packages: dict[str, list[str]]) -> Path:
    """A bare ``base/pkgs.git`` holding the packages, pushed from a work tree."""
    remote = bare_repo(base / "pkgs.git")
    work = base.parent / "work"
    git("init", "-q", "-b", "main", str(work))
    for package_id, versions in packages.items():
        for version in versions:
            write_package(work / package_id / version, package_id, version)
    commit_and_push(work, remote, "packages")
    return work


def commit_and_push(work: Path, remote: Path, message: str) -> None:
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", message, cwd=work)
    git("push", "-q", str(remote), "main", cwd=work)


def git_catalog(tmp_path: Path, url: str) -> Catalog:
    settings = Settings(data_dir=tmp_path / "data", market_mnn_hub=False, market_sources=[
        {"name": "pkgs", "kind": "git", "url": url + "pkgs.git", "refresh_seconds": 0}])
    [catalog] = catalogs_from_settings(settings)
    return catalog


def test_lists_and_installs_from_a_git_daemon_and_lists_offline(tmp_path: Path) -> None:
    base = tmp_path / "served"
    work = publish_repo(base, {"tiny": ["1.0.0", "2.0.0"], "other": ["0.1.0"]})
    (work / ".github/workflows").mkdir(parents=True)  # folders that are no package are passed over
    (work / ".github/workflows/ci.yml").write_text("on: push\n")
    commit_and_push(work, base / "pkgs.git", "ci")
    with git_daemon(base) as url:
        catalog = git_catalog(tmp_path, url)
        assert (catalog.name, catalog.kind) == ("pkgs", "git")
        listed = sorted((m.id, m.version) for m in catalog.entries())
        assert listed == [("other", "0.1.0"), ("tiny", "1.0.0"), ("tiny", "2.0.0")]
        dest = catalog.download("tiny", "2.0.0", tmp_path / "out")
        assert catalog.readme("tiny", "2.0.0") == FILES["README.md"][1].decode()
    verify_folder(dest, read_manifest(dest))
    assert (dest / "demo.py").read_bytes() == FILES["demo.py"][1]
    # The daemon is gone: the last fetched commit still lists.
    assert len(catalog.entries()) == 3


def test_a_file_that_does_not_match_its_manifest_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "served"
    work = publish_repo(base, {"tiny": ["1.0.0"]})
    (work / "tiny/1.0.0/model.mnn").write_bytes(b"\0" * len(FILES["model.mnn"][1]))
    commit_and_push(work, base / "pkgs.git", "swap the model, keep the manifest")
    with git_daemon(base) as url:
        catalog = git_catalog(tmp_path, url)
        assert [(m.id, m.version) for m in catalog.entries()] == [("tiny", "1.0.0")]
        with pytest.raises(TamperedFile) as refused:
            catalog.download("tiny", "1.0.0", tmp_path / "out")
    assert refused.value.extra["path"] == "model.mnn"
    assert not (tmp_path / "out").exists()


def test_a_source_pinned_to_a_tag_lists_that_tag(tmp_path: Path) -> None:
    base = tmp_path / "served"
    work = publish_repo(base, {"tiny": ["1.0.0"]})
    git("tag", "-a", "v1", "-m", "first catalog", cwd=work)
    git("push", "-q", str(base / "pkgs.git"), "v1", cwd=work)
    write_package(work / "tiny/2.0.0", "tiny", "2.0.0")
    commit_and_push(work, base / "pkgs.git", "tiny 2.0.0")
    with git_daemon(base) as url:
        settings = Settings(data_dir=tmp_path / "data", market_mnn_hub=False, market_sources=[
            {"name": "pinned", "kind": "git", "url": url + "pkgs.git", "ref": "v1"},
            {"name": "latest", "kind": "git", "url": url + "pkgs.git"}])
        pinned, latest = catalogs_from_settings(settings)
        assert [m.version for m in pinned.entries()] == ["1.0.0"]
        assert sorted(m.version for m in latest.entries()) == ["1.0.0", "2.0.0"]
