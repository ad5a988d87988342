"""An HTTP(S) catalog (index.json + folders) against a real static server on loopback."""

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from server import cli
from server.core.config import Settings
from server.core.errors import BadGateway, Unavailable
from server.market.package import TamperedFile, read_manifest, verify_folder
from server.market.remote.base import Catalog, catalogs_from_settings
from tests.fakes.static_http import static_http
from tests.server.market.remote_packages import FILES, publish_index


def http_catalog(tmp_path: Path, url: str) -> Catalog:
    settings = Settings(data_dir=tmp_path / "data", market_mnn_hub=False, market_sources=[
        {"name": "team-http", "kind": "http", "url": url + "index.json", "refresh_seconds": 0}])
    [catalog] = catalogs_from_settings(settings)
    return catalog


def test_lists_every_version_and_installs_one(tmp_path: Path) -> None:
    publish_index(tmp_path / "site", {"tiny": ["1.0.0", "1.1.0"], "other": ["0.1.0"]})
    with static_http(tmp_path / "site") as (url, _):
        catalog = http_catalog(tmp_path, url)
        assert (catalog.name, catalog.kind) == ("team-http", "http")
        listed = sorted((m.id, m.version) for m in catalog.entries())
        assert listed == [("other", "0.1.0"), ("tiny", "1.0.0"), ("tiny", "1.1.0")]
        dest = catalog.download("tiny", "1.1.0", tmp_path / "out")
    manifest = read_manifest(dest)
    assert (manifest.id, manifest.version) == ("tiny", "1.1.0")
    verify_folder(dest, manifest)
    assert {p.name for p in dest.iterdir()} == {*FILES, "algorithm.toml"}
    assert (dest / "model.mnn").read_bytes() == FILES["model.mnn"][1]


def test_an_interrupted_download_resumes_from_its_partial_file(tmp_path: Path) -> None:
    publish_index(tmp_path / "site", {"tiny": ["1.0.0"]})
    size = len(FILES["model.mnn"][1])
    with static_http(tmp_path / "site") as (url, state):
        catalog = http_catalog(tmp_path, url)
        catalog.entries()
        state.drop_once.add("/tiny/1.0.0/model.mnn")
        with pytest.raises(Unavailable) as cut:
            catalog.download("tiny", "1.0.0", tmp_path / "out")
        assert cut.value.code == "download_interrupted"
        assert not (tmp_path / "out").exists()
        partial = tmp_path / "data/market-cache/team-http/files/tiny@1.0.0/model.mnn.part"
        assert partial.stat().st_size == size // 2
        dest = catalog.download("tiny", "1.0.0", tmp_path / "out")
    model_requests = [r for path, r in state.requests if path == "/tiny/1.0.0/model.mnn"]
    assert model_requests == [None, f"bytes={size // 2}-"]
    assert (dest / "model.mnn").read_bytes() == FILES["model.mnn"][1]
    assert not partial.exists()


def test_a_tampered_file_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    publish_index(tmp_path / "site", {"tiny": ["1.0.0"]})
    with static_http(tmp_path / "site") as (url, _):
        catalog = http_catalog(tmp_path, url)
        catalog.entries()
        served = tmp_path / "site/tiny/1.0.0/model.mnn"
        served.write_bytes(bytes(reversed(served.read_bytes())))  # same size, other bytes
        empty = tmp_path / "empty"
        empty.mkdir()
        for dest in (tmp_path / "out", empty):
            with pytest.raises(TamperedFile) as refused:
                catalog.download("tiny", "1.0.0", dest)
            assert refused.value.extra["path"] == "model.mnn"
            assert "model.mnn" in refused.value.detail and "team-http" in refused.value.detail
    assert not (tmp_path / "out").exists()
    assert list(empty.iterdir()) == []
    assert not (tmp_path / "data/market-cache/team-http/files/tiny@1.0.0").exists()


def test_an_index_of_another_format_is_refused(tmp_path: Path) -> None:
    publish_index(tmp_path / "site", {"tiny": ["1.0.0"]}, fmt=2)
    with static_http(tmp_path / "site") as (url, _):
        with pytest.raises(BadGateway) as refused:
            http_catalog(tmp_path, url).entries()
    assert refused.value.code == "bad_index" and "format 2" in refused.value.detail


def test_market_sources_are_read_from_the_environment_and_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [{"name": "team-http", "kind": "http", "url": "https://example.com/index.json"},
               {"name": "mnn", "kind": "hub", "url": "https://hub.example.com", "org": "taobao-mnn"},
               {"name": "pkgs", "kind": "git", "url": "git://example.com/pkgs.git", "ref": "main"}]
    monkeypatch.setenv("MNNWB_MARKET_SOURCES", json.dumps(sources))
    settings = Settings(data_dir=tmp_path)
    assert [(c.name, c.kind) for c in catalogs_from_settings(settings)] == [
        ("mnn-hub", "hub"), ("team-http", "http"), ("mnn", "hub"), ("pkgs", "git")]
    bad = [
        ({"name": "x", "kind": "hub", "url": "https://hub.example.com"}, "org is required"),
        ({"name": "x", "kind": "http", "url": "ftp://example.com/index.json"}, "must start with"),
        ({"name": "builtin", "kind": "http", "url": "https://example.com/i.json"}, "built-in source"),
        ({"name": "x", "kind": "svn", "url": "https://example.com"}, "kind"),
    ]
    for source, message in bad:
        monkeypatch.setenv("MNNWB_MARKET_SOURCES", json.dumps([source]))
        with pytest.raises(ValidationError, match=message):
            Settings(data_dir=tmp_path)
    monkeypatch.setenv("MNNWB_MARKET_SOURCES", json.dumps([sources[0], sources[0]]))
    with pytest.raises(ValidationError, match="names a source twice"):
        Settings(data_dir=tmp_path)


def test_the_server_refuses_to_start_with_a_bad_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    source = {"name": "mnn", "kind": "hub", "url": "https://hub.example.com"}
    monkeypatch.setenv("MNNWB_MARKET_SOURCES", json.dumps([source]))
    assert cli.main(["serve", "--port", "0", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == ("invalid settings:\nMNNWB_MARKET_SOURCES[0]: Value error, org is "
                                       "required for a hub source and only for one\n")


def test_a_bad_version_is_left_out_and_the_rest_still_list(tmp_path: Path) -> None:
    publish_index(tmp_path / "site", {"tiny": ["1.0.0", "1.1.0", "1.2.0"]})
    manifest = tmp_path / "site/tiny/1.1.0/algorithm.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.1.0"', 'version = "9.9.9"'))
    (tmp_path / "site/tiny/1.2.0/algorithm.toml").write_bytes(b"\xff\xfe not text")
    with static_http(tmp_path / "site") as (url, _):
        assert [m.version for m in http_catalog(tmp_path, url).entries()] == ["1.0.0"]


def test_a_longer_file_than_listed_is_refused(tmp_path: Path) -> None:
    publish_index(tmp_path / "site", {"tiny": ["1.0.0"]})
    with static_http(tmp_path / "site") as (url, _):
        catalog = http_catalog(tmp_path, url)
        catalog.entries()
        with (tmp_path / "site/tiny/1.0.0/demo.py").open("ab") as served:
            served.write(b"import os; os.system('echo pwned')\n" * 1000)
        with pytest.raises(TamperedFile) as refused:
            catalog.download("tiny", "1.0.0", tmp_path / "out")
    assert refused.value.extra["path"] == "demo.py"
    assert not (tmp_path / "out").exists()
