"""A built-in build that fails answers a clear 503 naming the build's error, leaves nothing half
built, and does not hide the other sources from the market list."""

import stat
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.core.config import Settings
from server.market import builtins


def test_a_failed_build_is_a_clear_503_and_the_registry_still_lists(
        client: TestClient, settings: Settings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # An interpreter that dies the way a build out of memory does.
    failing = tmp_path / "python"
    failing.write_text("#!/bin/sh\necho 'MemoryError: the build ran out of memory' >&2\nexit 1\n")
    failing.chmod(failing.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(sys, "executable", str(failing))

    refused = client.get("/api/market", params={"source": "builtin"})
    assert refused.status_code == 503
    assert refused.json() == {"detail": "building the built-in algorithms failed: MemoryError: "
                                        "the build ran out of memory",
                              "code": "builtin_build_failed"}
    assert list(builtins.builtin_root(settings).iterdir()) == []

    project = client.post("/api/projects", json={"name": "p", "template": "empty"}).json()
    Path(project["path"], "m.mnn").write_bytes(b"weights")
    client.post(f"/api/projects/{project['id']}/publish",
                json={"id": "mine", "version": "1", "files": ["m.mnn"]})
    assert [(e["id"], e["source"]) for e in client.get("/api/market").json()] == [
        ("mine", "registry")]
