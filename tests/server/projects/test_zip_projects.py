"""A new project from an uploaded zip of a playground folder (server/projects/zipped.py): the app
file at the zip's root or in its single top folder makes a project that opens as a playground;
hostile zips are refused by name and nothing is written."""

import io
import json
import os
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.core.config import Settings
from tests.conftest import make_client

APP = json.dumps({"applicationName": "Zipped", "entryFile": "/main.py", "modelName": "m"})
MAX_UNPACKED = 1024 * 1024
MAX_ENTRIES = 50
MAX_UPLOAD = 256 * 1024


@pytest.fixture
def zip_client(settings: Settings) -> Iterator[TestClient]:
    """Small limits, so a bomb is cheap to make."""
    settings.zip_max_unpacked_bytes = MAX_UNPACKED
    settings.zip_max_entries = MAX_ENTRIES
    settings.upload_max_bytes = MAX_UPLOAD
    with make_client(settings) as client:
        yield client


def make_zip(entries: dict[str, bytes], level: int = 6) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def upload(client: TestClient, name: str, body: bytes):
    """Unpacked without a repository (``git=false``): these tests look at what the zip gives;
    tests/server/projects/test_new_repositories.py checks the repository an upload gets."""
    return client.post("/api/projects/zip", params={"name": name, "git": "false"}, content=body,
                       headers={"Content-Type": "application/zip"})


def written(settings: Settings) -> list[str]:
    """What is in the projects folder (hidden staging folders included)."""
    folder = settings.projects_dir
    return sorted(os.listdir(folder)) if folder.exists() else []


@pytest.mark.parametrize("top", ["", "colours/"])
def test_a_zipped_playground_becomes_a_playground_project(zip_client, settings, top) -> None:
    body = make_zip({f"{top}app.mnnplayground": APP.encode(), f"{top}main.py": b"print('hi')\n",
                     f"{top}models/m.mnn": b"\x00model"})
    answer = upload(zip_client, "from zip", body)
    assert answer.status_code == 201, answer.text
    project = answer.json()
    assert project["kind"] == "playground"
    assert project["playground"] == {"application_name": "Zipped", "entry_file": "main.py",
                                     "model_name": "m"}
    root = Path(project["path"])
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == [
        "app.mnnplayground", "main.py", "models", "models/m.mnn"]
    assert (root / "models" / "m.mnn").read_bytes() == b"\x00model"
    assert zip_client.get(f"/api/projects/{project['id']}").json()["kind"] == "playground"
    assert written(settings) == ["from zip"]


def _symlink_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.mnnplayground", APP)
        link = zipfile.ZipInfo("secrets")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return buffer.getvalue()


@pytest.mark.parametrize(("entry", "body", "what"), [
    ("../outside.py", make_zip({"app.mnnplayground": APP.encode(), "../outside.py": b""}),
     "a path that leaves the zip"),
    ("/etc/cron.d/x", make_zip({"app.mnnplayground": APP.encode(), "/etc/cron.d/x": b""}),
     "not a relative path inside the zip"),
    (".git/hooks/post-checkout", make_zip({"app.mnnplayground": APP.encode(),
                                           ".git/hooks/post-checkout": b"#!/bin/sh\n"}),
     "a Git folder"),
    ("top/GIT~1/config", make_zip({"top/app.mnnplayground": APP.encode(), "top/GIT~1/config": b""}),
     "a Git folder"),
    ("secrets", _symlink_zip(), "a symbolic link"),
], ids=["dot-dot", "absolute", "git", "git-short-name", "symlink"])  # the zips' bytes hold a time
def test_hostile_entries_are_refused_by_name_and_nothing_is_written(
    zip_client, settings, entry, body, what
) -> None:
    answer = upload(zip_client, "hostile", body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "unsafe_zip_entry"
    assert answer.json()["entry"] == entry
    assert answer.json()["detail"] == f"{entry} is {what}; nothing of the zip was unpacked"
    assert written(settings) == []
    assert zip_client.get("/api/projects").json() == []


def test_zip_bombs_and_oversized_uploads_are_refused_with_nothing_written(zip_client, settings) -> None:
    bomb = make_zip({"app.mnnplayground": APP.encode(), "zeros.bin": bytes(MAX_UNPACKED + 1)}, level=9)
    assert len(bomb) < MAX_UNPACKED / 100  # a real bomb: far more unpacked than sent
    answer = upload(zip_client, "bomb", bomb)
    assert answer.status_code == 413
    assert answer.json()["code"] == "zip_too_large"
    assert "unpacks to" in answer.json()["detail"]

    many = make_zip({"app.mnnplayground": APP.encode(), **{f"f{i}.py": b"" for i in range(MAX_ENTRIES)}})
    answer = upload(zip_client, "many", many)
    assert answer.status_code == 413
    assert answer.json()["detail"] == f"the zip has {MAX_ENTRIES + 1} entries; the limit is {MAX_ENTRIES}"

    large = make_zip({"app.mnnplayground": APP.encode(), "noise.bin": os.urandom(MAX_UPLOAD)}, level=0)
    answer = upload(zip_client, "large", large)
    assert answer.status_code == 413
    assert answer.json()["detail"] == f"the zip is larger than the upload limit of {MAX_UPLOAD} bytes"
    assert written(settings) == []
    assert [p for p in settings.data_dir.iterdir() if p.name.startswith("tmp")] == []


def test_what_is_not_a_playground_zip_is_named(zip_client, settings) -> None:
    answer = upload(zip_client, "plain", make_zip({"a/main.py": b"", "b/readme.md": b""}))
    assert (answer.status_code, answer.json()["code"]) == (422, "not_a_playground")
    answer = upload(zip_client, "garbage", b"this is no zip")
    assert (answer.status_code, answer.json()["code"]) == (422, "bad_zip")
    answer = upload(zip_client, "../up", make_zip({"app.mnnplayground": APP.encode()}))
    assert (answer.status_code, answer.json()["code"]) == (422, "bad_name")
    assert written(settings) == []
    upload(zip_client, "twice", make_zip({"app.mnnplayground": APP.encode()}))
    answer = upload(zip_client, "twice", make_zip({"app.mnnplayground": APP.encode()}))
    assert (answer.status_code, answer.json()["code"]) == (409, "duplicate")
    assert written(settings) == ["twice"]
