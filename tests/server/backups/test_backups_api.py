"""``/api/projects/{pid}/backups``: hot exit keeps each person's unsaved edits on the server
until they save or drop them (docs/ide.md, "Nothing lost on reload")."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.backups.models import MAX_BYTES, MAX_FILES
from server.core.config import Settings
from tests.conftest import make_client
from tests.server.team.conftest import Team, start_team, team_settings


def _url(project: dict | str) -> str:
    pid = project if isinstance(project, str) else project["id"]
    return f"/api/projects/{pid}/backups"


def _keep(client: TestClient, project: dict | str, path: str, content: str, etag: str | None = None,
          **kwargs: object) -> int:
    body = {"content": content, "base_etag": etag}
    return client.put(_url(project), params={"path": path}, json=body, **kwargs).status_code  # type: ignore[arg-type]


def test_unsaved_text_is_kept_replaced_and_dropped(client: TestClient, project: dict) -> None:
    url = _url(project)
    assert client.get(url).json() == []
    read = client.get(f"/api/projects/{project['id']}/files/content", params={"path": "README.md"})
    etag = read.json()["etag"]
    assert _keep(client, project, "README.md", "draft 1", etag) == 204
    assert _keep(client, project, "./README.md", "draft 2", etag) == 204
    assert _keep(client, project, "new.py", "x = 1\n") == 204
    kept = client.get(url).json()
    assert [(b["path"], b["content"], b["base_etag"]) for b in kept] == [
        ("README.md", "draft 2", etag), ("new.py", "x = 1\n", None)]
    assert client.delete(url, params={"path": "README.md"}).status_code == 204
    assert client.delete(url, params={"path": "README.md"}).status_code == 204  # dropping twice is fine
    assert [b["path"] for b in client.get(url).json()] == ["new.py"]
    # The file on disk is never touched by a backup.
    assert "draft" not in (Path(project["path"]) / "README.md").read_text()


def test_a_path_out_of_the_project_is_refused(client: TestClient, project: dict) -> None:
    for path in ("../outside.txt", "/etc/passwd", ".git/config"):
        answer = client.put(_url(project), params={"path": path}, json={"content": "x"})
        assert answer.status_code in (403, 422), answer.text
        assert answer.json()["code"] in ("path_escape", "git_dir", "bad_path", "invalid"), answer.json()
    assert client.get(_url(project)).json() == []


def test_past_the_caps_is_refused_by_name(client: TestClient, project: dict) -> None:
    url = _url(project)
    big = client.put(url, params={"path": "big.txt"}, json={"content": "x" * (MAX_BYTES + 1)})
    assert big.status_code == 413 and big.json()["code"] == "backup_too_large", big.text
    assert client.put(url, params={"path": "big.txt"}, json={"content": "x" * MAX_BYTES}).status_code == 204
    for n in range(MAX_FILES - 1):
        assert client.put(url, params={"path": f"f{n}.txt"}, json={"content": "y"}).status_code == 204
    over = client.put(url, params={"path": "one-more.txt"}, json={"content": "z"})
    assert over.status_code == 413 and over.json()["code"] == "too_many_backups", over.text
    # A file already kept is still replaced at the cap.
    assert client.put(url, params={"path": "f0.txt"}, json={"content": "y2"}).status_code == 204
    assert len(client.get(url).json()) == MAX_FILES


def test_kept_across_a_server_restart(settings: Settings, project: dict) -> None:
    with make_client(settings) as first:
        assert _keep(first, project, "README.md", "mine") == 204
    with make_client(settings) as second:  # a new server on the same data
        assert [b["content"] for b in second.get(_url(project)).json()] == ["mine"]


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    yield from start_team(team_settings(tmp_path / "data"))


def test_each_member_has_their_own_and_a_viewer_keeps_none(team: Team) -> None:
    pid = team.new_project()
    url = _url(pid)
    assert _keep(team.client, pid, "README.md", "owner's", headers=team.auth("owner")) == 204
    assert _keep(team.client, pid, "README.md", "editor's", headers=team.auth("editor")) == 204
    assert [b["content"] for b in team.client.get(url, headers=team.auth("owner")).json()] == ["owner's"]
    assert [b["content"] for b in team.client.get(url, headers=team.auth("editor")).json()] == ["editor's"]
    assert team.client.get(url, headers=team.auth("viewer")).json() == []
    assert _keep(team.client, pid, "README.md", "v", headers=team.auth("viewer")) == 403
