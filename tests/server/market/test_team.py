"""Team mode: editors and owners publish from their projects, viewers and outsiders do not;
only administrators delete or deprecate versions; installing needs write access to the project."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.team.conftest import Team, start_team, team_settings


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    yield from start_team(team_settings(tmp_path / "data"))


def _publish(team: Team, who: str, pid: str, version: str) -> tuple[int, str | None]:
    response = team.client.post(f"/api/projects/{pid}/publish", headers=team.auth(who), json={
        "id": "shared", "version": version, "files": ["m.mnn"]})
    return response.status_code, response.json().get("code")


def test_publishing_and_retiring_versions_follow_the_roles(team: Team) -> None:
    pid = team.new_project("pub")
    path = team.client.get(f"/api/projects/{pid}", headers=team.auth("owner")).json()["path"]
    Path(path, "m.mnn").write_bytes(b"model bytes")
    assert _publish(team, "outsider", pid, "1.0.0") == (404, "no_project")
    assert _publish(team, "viewer", pid, "1.0.0") == (403, "role_required")
    assert _publish(team, "editor", pid, "1.0.0")[0] == 201
    assert _publish(team, "owner", pid, "1.1.0")[0] == 201
    card = team.client.get("/api/market/shared", params={"source": "registry"},
                           headers=team.auth("outsider")).json()
    assert [(v["version"], v["publisher"]) for v in card["versions"]] == [
        ("1.1.0", "owner"), ("1.0.0", "editor")]

    other = team.new_project("other")
    install = "/api/market/shared/versions/1.0.0/install"
    body = {"source": "registry", "project_id": other}
    assert team.client.post(install, json=body, headers=team.auth("viewer")).status_code == 403
    assert team.client.post(install, json=body, headers=team.auth("editor")).status_code == 201

    url = "/api/market/shared/versions/1.0.0"
    for who in ("owner", "editor"):
        assert team.client.delete(url, headers=team.auth(who)).json()["code"] == "admin_only"
        refused = team.client.post(f"{url}/deprecate", json={}, headers=team.auth(who))
        assert refused.json()["code"] == "admin_only"
    assert team.client.post(f"{url}/deprecate", json={},
                            headers=team.auth("admin")).json()["deprecated"] is True
    assert team.client.delete(url, headers=team.auth("admin")).status_code == 204
