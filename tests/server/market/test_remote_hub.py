"""A hub catalog through the real ``huggingface_hub`` client against the hub emulator."""

import hashlib
import json
from pathlib import Path

import pytest
from huggingface_hub import constants, get_session, hf_hub_download
from huggingface_hub.errors import OfflineModeIsEnabled

from server.core.config import Settings
from server.core.errors import Unavailable
from server.market.package import TamperedFile, read_manifest, verify_folder
from server.market.remote.base import Catalog, catalogs_from_settings
from server.market.remote.hubclient import hub_api
from tests.fakes.hf_hub import hf_hub
from tests.server.market.remote_packages import FILES, write_package

ORG = "taobao-mnn"
PLAIN = {
    "llm.mnn": bytes(range(256)) * 16,
    "llm.mnn.weight": hashlib.sha256(b"w").digest() * 512,
    "config.json": json.dumps({"llm_model": "llm.mnn", "llm_weight": "llm.mnn.weight"}).encode(),
    "README.md": b"# Tiny-LLM-MNN\n",
}


def make_hub(root: Path) -> None:
    """``tiny`` (with algorithm.toml, tagged 1.0.0) and a plain MNN model repository."""
    for revision in ("main", "1.0.0"):
        write_package(root / ORG / "tiny" / revision, "tiny", "1.0.0")
    plain = root / ORG / "Tiny-LLM-MNN" / "main"
    plain.mkdir(parents=True)
    for name, data in PLAIN.items():
        (plain / name).write_bytes(data)
    (plain / ".gitattributes").write_text("*.mnn filter=lfs diff=lfs merge=lfs -text\n")


def hub_catalog(tmp_path: Path, endpoint: str) -> Catalog:
    settings = Settings(data_dir=tmp_path / "data", market_mnn_hub=False, market_sources=[
        {"name": "mnn", "kind": "hub", "url": endpoint, "org": ORG, "refresh_seconds": 0}])
    [catalog] = catalogs_from_settings(settings)
    return catalog


def test_the_emulator_serves_the_real_download_client(tmp_path: Path) -> None:
    make_hub(tmp_path / "hub")
    with hf_hub(tmp_path / "hub") as (endpoint, state):
        hub_api(endpoint)  # the client is the one the catalog configures
        for name in ("llm.mnn", "config.json"):
            got = hf_hub_download(f"{ORG}/Tiny-LLM-MNN", name, endpoint=endpoint, token=False,
                                  cache_dir=tmp_path / "hf-cache")
            assert Path(got).read_bytes() == PLAIN[name]
    heads = [seen.path for seen in state.requests if seen.method == "HEAD"]
    assert heads == [f"/{ORG}/Tiny-LLM-MNN/resolve/main/{name}" for name in ("llm.mnn", "config.json")]
    assert any(seen.path.startswith("/lfs/") for seen in state.requests)  # the 302 to the "CDN"


def test_lists_packages_and_plain_model_repositories(tmp_path: Path) -> None:
    make_hub(tmp_path / "hub")
    hf_home = Path(constants.HF_HOME)
    before = sorted(hf_home.rglob("*")) if hf_home.exists() else None
    tags = {f"{ORG}/Tiny-LLM-MNN": "text-generation"}
    with hf_hub(tmp_path / "hub", pipeline_tags=tags) as (endpoint, state):
        catalog = hub_catalog(tmp_path, endpoint)
        entries = {(m.id, m.version): m for m in catalog.entries()}
        assert sorted(entries) == [("tiny", "1.0.0"), ("tiny-llm-mnn", "main")]
        plain = entries["tiny-llm-mnn", "main"]
        assert (plain.task, plain.license, plain.authors) == ("text-generation", "apache-2.0", [ORG])
        lfs = {f.path: f.sha256 for f in plain.files}
        assert lfs == {n: hashlib.sha256(PLAIN[n]).hexdigest() for n in ("llm.mnn", "llm.mnn.weight")}
        assert plain.metrics.size_bytes == sum(len(d) for d in PLAIN.values())
        assert catalog.readme("tiny-llm-mnn", "main") == PLAIN["README.md"].decode()
        assert catalog.readme("tiny", "1.0.0") == FILES["README.md"][1].decode()
        state.serve_instead["README.md"] = b"# Tiny-LLM-MNX\n"
        assert catalog.readme("tiny-llm-mnn", "main") == ""  # not what the hub listed
        del state.serve_instead["README.md"]
        dest = catalog.download("tiny-llm-mnn", "main", tmp_path / "llm")
        packaged = catalog.download("tiny", "1.0.0", tmp_path / "tiny")
    manifest = read_manifest(dest)
    verify_folder(dest, manifest)
    assert {f.path: f.sha256 for f in manifest.files} == {
        n: hashlib.sha256(d).hexdigest() for n, d in PLAIN.items()}
    assert next(f.role for f in manifest.files if f.path == "llm.mnn") == "model"
    assert (packaged / "model.mnn").read_bytes() == FILES["model.mnn"][1]
    assert all(seen.path != "/api/agent-harnesses" for seen in state.requests)
    assert (sorted(hf_home.rglob("*")) if hf_home.exists() else None) == before


def test_the_library_reaches_no_other_host(tmp_path: Path) -> None:
    make_hub(tmp_path / "hub")
    with hf_hub(tmp_path / "hub") as (endpoint, _):
        hub_catalog(tmp_path, endpoint).entries()
        with pytest.raises(OfflineModeIsEnabled):
            get_session().get("https://huggingface.co/api/models")


def test_an_interrupted_lfs_download_resumes_with_a_range(tmp_path: Path) -> None:
    make_hub(tmp_path / "hub")
    weight = PLAIN["llm.mnn.weight"]
    with hf_hub(tmp_path / "hub") as (endpoint, state):
        catalog = hub_catalog(tmp_path, endpoint)
        catalog.entries()
        state.drop_once.add("llm.mnn.weight")
        with pytest.raises(Unavailable):
            catalog.download("tiny-llm-mnn", "main", tmp_path / "llm")
        assert not (tmp_path / "llm").exists()
        dest = catalog.download("tiny-llm-mnn", "main", tmp_path / "llm")
    cdn = f"/lfs/{hashlib.sha256(weight).hexdigest()}"
    assert [seen.range for seen in state.requests if seen.path == cdn] == [None, f"bytes={len(weight) // 2}-"]
    assert (dest / "llm.mnn.weight").read_bytes() == weight


@pytest.mark.parametrize("name", ["llm.mnn", "config.json"])
def test_a_tampered_file_is_refused_and_nothing_is_written(tmp_path: Path, name: str) -> None:
    make_hub(tmp_path / "hub")
    with hf_hub(tmp_path / "hub") as (endpoint, state):
        catalog = hub_catalog(tmp_path, endpoint)
        catalog.entries()
        state.serve_instead[name] = bytes(reversed(PLAIN[name]))
        with pytest.raises(TamperedFile) as refused:
            catalog.download("tiny-llm-mnn", "main", tmp_path / "llm")
    assert refused.value.extra["path"] == name
    assert not (tmp_path / "llm").exists()
    assert not (tmp_path / "data/market-cache/mnn/files/tiny-llm-mnn@main").exists()
