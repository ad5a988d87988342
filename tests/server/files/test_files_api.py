"""Files: listing, reading, atomic saves with ETags, ops, upload, download."""

import os
from pathlib import Path

import pytest

from server.api.services import services_of


@pytest.fixture
def files(project):
    return f"/api/projects/{project['id']}/files"


@pytest.fixture
def root(project) -> Path:
    return Path(project["path"])


def test_listing_hides_noise_and_sorts_dirs_first(client, files, root):
    for name in (".git", "__pycache__", "node_modules", "src"):
        (root / name).mkdir()
    entries = client.get(files).json()
    assert [e["name"] for e in entries] == ["src", "main.py", "README.md"]
    assert {e["type"] for e in entries} == {"dir", "file"}
    shown = [e["name"] for e in client.get(files, params={"all": True}).json()]
    assert "node_modules" in shown


def test_read_detects_text_encodings_and_binary(client, files, root):
    (root / "latin.txt").write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e, d\xe9j\xe0 vu".encode("latin-1"))
    (root / "blob.bin").write_bytes(b"\x00\x01\x02MNN")
    latin = client.get(f"{files}/content", params={"path": "latin.txt"}).json()
    assert "café" in latin["content"] and latin["binary"] is False
    blob = client.get(f"{files}/content", params={"path": "blob.bin"}).json()
    assert blob["binary"] is True and blob["content"] is None and blob["size"] == 6


def test_save_is_atomic_and_etag_guarded(client, files, root):
    first = client.get(f"{files}/content", params={"path": "main.py"}).json()
    saved = client.put(f"{files}/content", params={"path": "main.py"},
                       json={"content": "print(1)\n", "etag": first["etag"]}).json()
    assert (root / "main.py").read_text() == "print(1)\n"
    stale = client.put(f"{files}/content", params={"path": "main.py"},
                       json={"content": "print(2)\n", "etag": first["etag"]})
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "conflict"
    assert body["current"] == {"content": "print(1)\n", "etag": saved["etag"]}
    assert (root / "main.py").read_text() == "print(1)\n"
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def test_save_keeps_the_file_encoding_and_mode(client, files, root):
    path = root / "latin.txt"
    path.write_bytes("d\xe9j\xe0 vu, caf\xe9 cr\xe8me".encode("latin-1"))
    os.chmod(path, 0o755)
    opened = client.get(f"{files}/content", params={"path": "latin.txt"}).json()
    client.put(f"{files}/content", params={"path": "latin.txt"},
               json={"content": opened["content"] + "!", "etag": opened["etag"]})
    assert path.read_bytes().endswith("\xe8me!".encode("latin-1"))
    assert path.stat().st_mode & 0o777 == 0o755


def test_file_ops(client, files, root):
    def op(**body):
        return client.post(f"{files}/ops", json=body)

    assert op(op="mkdir", path="pkg").json() == {"path": "pkg", "trash_id": None}
    assert op(op="create", path="pkg/a.py").status_code == 200
    assert op(op="create", path="pkg/a.py").status_code == 409
    assert op(op="rename", path="pkg/a.py", to="pkg/b.py").json() == {"path": "pkg/b.py", "trash_id": None}
    assert (root / "pkg/b.py").exists() and not (root / "pkg/a.py").exists()
    # A new file or folder makes the folders it needs; a file in the way is a conflict.
    assert op(op="create", path="src/a/b.py").json() == {"path": "src/a/b.py", "trash_id": None}
    assert (root / "src/a/b.py").is_file()
    assert op(op="mkdir", path="src/c/d").status_code == 200
    assert (root / "src/c/d").is_dir()
    assert op(op="create", path="pkg/b.py/x.py").status_code == 409
    assert op(op="rename", path="pkg/b.py", to="missing/b.py").status_code == 404
    assert op(op="delete", path="pkg").status_code == 200
    assert not (root / "pkg").exists()
    assert op(op="delete", path="").status_code == 422
    assert root.exists()


def test_a_delete_goes_to_the_trash_and_comes_back(client, files, root, settings, project):
    def op(**body):
        return client.post(f"{files}/ops", json=body)

    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("a = 1\n")
    (root / "pkg" / "link").symlink_to("a.py")
    deleted = op(op="delete", path="pkg")
    assert deleted.status_code == 200
    trash_id = deleted.json()["trash_id"]
    assert not (root / "pkg").exists()
    trash = settings.data_dir / "trash" / project["id"]
    assert [p.name for p in trash.iterdir()] == [trash_id]  # outside the project
    restored = client.post(f"{files}/trash/{trash_id}/restore")
    assert restored.json() == {"path": "pkg", "trash_id": None}
    assert (root / "pkg" / "a.py").read_text() == "a = 1\n"
    assert (root / "pkg" / "link").is_symlink() and (root / "pkg" / "link").readlink().as_posix() == "a.py"
    assert list(trash.iterdir()) == []
    again = client.post(f"{files}/trash/{trash_id}/restore")
    assert again.status_code == 404 and again.json()["code"] == "not_in_trash"
    # something standing where it was: refused, and the entry stays in the trash
    file_id = op(op="delete", path="pkg/a.py").json()["trash_id"]
    (root / "pkg" / "a.py").write_text("new\n")
    refused = client.post(f"{files}/trash/{file_id}/restore")
    assert refused.status_code == 409 and refused.json()["code"] == "exists"
    assert (root / "pkg" / "a.py").read_text() == "new\n"
    (root / "pkg" / "a.py").unlink()
    assert client.post(f"{files}/trash/{file_id}/restore").status_code == 200
    assert (root / "pkg" / "a.py").read_text() == "a = 1\n"
    for hostile in ("..", "../../x", "0000000000000000-zzzzzzzz"):
        assert client.post(f"{files}/trash/{hostile}/restore").status_code in (404, 405)


def test_the_trash_keeps_the_newest_entries(client, files, root, settings, project, monkeypatch):
    from server.files import trash

    monkeypatch.setattr(trash, "KEEP", 3)
    ids = []
    for n in range(5):
        (root / f"f{n}.txt").write_text(str(n))
        ids.append(client.post(f"{files}/ops", json={"op": "delete", "path": f"f{n}.txt"}).json()["trash_id"])
    kept = sorted(p.name for p in (settings.data_dir / "trash" / project["id"]).iterdir())
    assert kept == ids[-3:]
    assert client.post(f"{files}/trash/{ids[0]}/restore").status_code == 404
    # a project's trash goes with the project
    client.delete(f"/api/projects/{project['id']}")
    assert not (settings.data_dir / "trash" / project["id"]).exists()


def test_upload_and_download(client, files, root):
    response = client.post(f"{files}/upload", data={"dir": ""},
                           files=[("files", ("model.bin", b"\x00" * 1000 + b"end"))])
    assert response.status_code == 201
    assert response.json()[0]["size"] == 1003
    raw = client.get(f"{files}/raw", params={"path": "model.bin"})
    assert raw.content == b"\x00" * 1000 + b"end"
    assert raw.headers["content-type"] == "application/octet-stream"
    assert "attachment" in raw.headers["content-disposition"]


def test_upload_over_the_cap_is_refused_and_keeps_the_old_file(client, settings, files, root):
    (root / "keep.bin").write_bytes(b"old")
    services_of(client.app).settings.upload_max_bytes = 100
    response = client.post(f"{files}/upload", data={"dir": ""},
                           files=[("files", ("keep.bin", b"x" * 500))])
    assert response.status_code == 413
    assert (root / "keep.bin").read_bytes() == b"old"
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


def test_upload_with_a_hostile_name_is_refused(client, files, root):
    response = client.post(f"{files}/upload", data={"dir": ""},
                           files=[("files", ("..", b"x"))])
    assert response.status_code in (403, 422)


def test_large_file_reads_are_refused_with_a_hint(client, files, root):
    services_of(client.app).settings.file_read_max_bytes = 10
    (root / "big.txt").write_text("x" * 100)
    response = client.get(f"{files}/content", params={"path": "big.txt"})
    assert response.status_code == 413 and "download" in response.json()["detail"]
