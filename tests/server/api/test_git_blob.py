"""A file at a revision as a safe download, and Inspect on a model version not on disk."""

from pathlib import Path

import pytest
from dulwich.objects import Blob

from tests.fakes import models
from tests.fakes.git_remotes import git
from tests.plugin.tools import wait_for_run


@pytest.fixture
def repo(client, project, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    root, base = Path(project["path"]), f"/api/projects/{project['id']}/git"
    client.post(f"{base}/init")
    git("config", "user.name", "Ada", cwd=root)
    git("config", "user.email", "ada@example.com", cwd=root)
    return root, base


def _commit(client, base, path, message):
    client.post(f"{base}/stage", json={"paths": [path]})
    return client.post(f"{base}/commit", json={"message": message}).json()["sha"]


def test_blob_at_a_commit_head_and_the_index(client, repo):
    root, base = repo
    (root / "w.bin").write_bytes(b"\x00one")
    first = _commit(client, base, "w.bin", "one")
    (root / "w.bin").write_bytes(b"\x00two")
    _commit(client, base, "w.bin", "two")
    (root / "w.bin").write_bytes(b"\x00staged")
    client.post(f"{base}/stage", json={"paths": ["w.bin"]})
    (root / "w.bin").write_bytes(b"\x00on disk")
    for rev, want in (
        (first, b"\x00one"),
        ("HEAD^", b"\x00one"),
        ("HEAD", b"\x00two"),
        (":0", b"\x00staged"),
        ("index", b"\x00staged"),
    ):
        got = client.get(f"{base}/blob", params={"rev": rev, "path": "w.bin"})
        assert (got.status_code, got.content) == (200, want), rev
    root_parent = client.get(f"{base}/blob", params={"rev": f"{first}^", "path": "w.bin"})
    assert root_parent.json()["code"] == "blob_not_found"
    headers = got.headers
    assert headers["content-type"] == "application/octet-stream"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["content-security-policy"] == "sandbox"
    assert headers["content-disposition"].startswith("attachment")
    assert headers["etag"].strip('"') == Blob.from_string(b"\x00staged").id.decode()


@pytest.mark.parametrize(
    ("path", "code"),
    [("../outside", "invalid_path"), (".git/config", "invalid_path"), ("missing.bin", "blob_not_found")],
)
def test_blob_paths_are_confined(client, repo, path, code):
    root, base = repo
    (root / "a.txt").write_text("a")
    _commit(client, base, "a.txt", "a")
    got = client.get(f"{base}/blob", params={"rev": "HEAD", "path": path})
    assert got.json()["code"] == code


def test_inspect_a_committed_model_that_changed_on_disk(client, repo, project):
    root, base = repo
    models.conv_net(root / "net.onnx")
    (root / "notes.txt").write_text("not a model")
    client.post(f"{base}/stage", json={"paths": ["notes.txt"]})
    sha = _commit(client, base, "net.onnx", "conv")
    models.dynamic_batch_net(root / "net.onnx")
    started = client.post(f"{base}/blob-inspect", json={"rev": sha, "path": "net.onnx"})
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"])
    assert run["status"] == "succeeded", run
    assert run["result"]["inputs"][0]["shape"] == [1, 3, 32, 32]
    on_disk = client.post(f"/api/projects/{project['id']}/tools/inspect", json={"model": "net.onnx"}).json()
    assert wait_for_run(client, on_disk["id"])["result"]["inputs"][0]["shape"] != [1, 3, 32, 32]
    text = client.post(f"{base}/blob-inspect", json={"rev": sha, "path": "notes.txt"})
    assert (text.status_code, text.json()["code"]) == (422, "bad_model_file")
