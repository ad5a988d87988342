"""Projects and members over the API, on SQLite and on PostgreSQL (``MNNWB_DATABASE_URL``)."""

from pathlib import Path

from tests.server.team.conftest import start_team, team_settings


def test_projects_and_members_round_trip(tmp_path: Path, database_url: str):
    for team in start_team(team_settings(tmp_path / "data", database_url=database_url)):
        owner, viewer = team.auth("owner"), team.auth("viewer")
        pid = team.new_project("first")
        renamed = team.client.patch(f"/api/projects/{pid}", json={"name": "renamed"}, headers=owner)
        assert renamed.json()["name"] == "renamed"
        assert [p["name"] for p in team.client.get("/api/projects", headers=viewer).json()] == ["renamed"]
        roles = {m["user"]: m["role"] for m in
                 team.client.get(f"/api/projects/{pid}/members", headers=viewer).json()}
        assert roles == {"owner": "owner", "editor": "editor", "viewer": "viewer"}
        removed = team.client.delete(f"/api/projects/{pid}/members/editor", headers=owner)
        assert removed.status_code == 204
        assert team.client.get(f"/api/projects/{pid}", headers=team.auth("editor")).status_code == 404
        assert team.client.delete(f"/api/projects/{pid}", headers=viewer).status_code == 403
        assert team.client.delete(f"/api/projects/{pid}", headers=owner).status_code == 204
        assert team.client.get("/api/projects", headers=viewer).json() == []
        audit = [e["action"] for e in team.client.get("/api/audit", headers=team.auth("admin")).json()]
        assert audit.count("member.set") == 2 and audit.count("member.remove") == 1
