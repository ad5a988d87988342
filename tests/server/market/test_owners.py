"""A registry id belongs to the project that first published it: other projects are refused a new
version until an administrator hands the id over; ids published before owners were recorded go
to the project of their earliest version."""

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import text

from server.core.db import MIGRATIONS_DIR, make_engine, migrate
from tests.server.team.conftest import Team, start_team, team_settings


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    yield from start_team(team_settings(tmp_path / "data"))


def _project_with_model(team: Team, name: str) -> str:
    """A project of ``owner`` holding a model file."""
    made = team.client.post("/api/projects", json={"name": name}, headers=team.auth("owner"))
    assert made.status_code == 201, made.text
    Path(made.json()["path"], "m.mnn").write_bytes(f"weights of {name}".encode())
    return str(made.json()["id"])


def _publish(team: Team, pid: str, version: str) -> tuple[int, str | None]:
    response = team.client.post(f"/api/projects/{pid}/publish", headers=team.auth("owner"), json={
        "id": "shared", "version": version, "files": ["m.mnn"]})
    return response.status_code, response.json().get("code")


def _transfer(team: Team, who: str, pid: str, package: str = "shared") -> tuple[int, dict]:
    response = team.client.post(f"/api/market/registry/{package}/owner", headers=team.auth(who),
                                json={"project_id": pid})
    return response.status_code, response.json()


def test_only_the_owning_project_publishes_until_an_admin_hands_the_id_over(team: Team) -> None:
    first, second = _project_with_model(team, "first"), _project_with_model(team, "second")
    assert _publish(team, first, "1.0.0")[0] == 201
    assert _publish(team, second, "1.1.0") == (403, "not_package_owner")
    assert _publish(team, first, "1.1.0")[0] == 201
    versions = team.client.get("/api/market/shared", params={"source": "registry"},
                               headers=team.auth("owner")).json()["versions"]
    assert [v["version"] for v in versions] == ["1.1.0", "1.0.0"]

    for who in ("owner", "editor", "viewer", "outsider"):
        assert _transfer(team, who, second)[1]["code"] == "admin_only"
    assert _publish(team, second, "1.2.0") == (403, "not_package_owner")
    status, owner = _transfer(team, "admin", second)
    assert (status, owner["id"], owner["project_id"]) == (200, "shared", second)
    assert _publish(team, second, "1.2.0")[0] == 201
    assert _publish(team, first, "1.3.0") == (403, "not_package_owner")
    audit = team.client.get("/api/audit", headers=team.auth("admin")).json()
    handed = [e for e in audit if e["action"] == "market.owner"]
    assert [(e["actor"], e["data"]["project"], e["data"]["previous"]) for e in handed] == [
        ("admin", second, first)]


def test_a_deleted_version_keeps_its_id_with_its_project(team: Team) -> None:
    first, second = _project_with_model(team, "first"), _project_with_model(team, "second")
    assert _publish(team, first, "1.0.0")[0] == 201
    deleted = team.client.delete("/api/market/shared/versions/1.0.0", headers=team.auth("admin"))
    assert deleted.status_code == 204
    assert _publish(team, second, "1.0.0") == (403, "not_package_owner")
    assert _publish(team, first, "1.0.0")[0] == 201


def test_handing_over_names_an_unknown_package_or_project(team: Team) -> None:
    first = _project_with_model(team, "first")
    assert _transfer(team, "admin", first, "nothing")[1]["code"] == "package_not_found"
    assert _publish(team, first, "1.0.0")[0] == 201
    assert _transfer(team, "admin", "0" * 16)[1]["code"] == "no_project"


def _version_row(package: str, version: str, project: str | None, at: str) -> dict:
    return {"package": package, "version": version, "project": project,
            "at": datetime.fromisoformat(at)}


def test_the_migration_gives_each_id_to_the_project_of_its_earliest_version(
        database_url: str) -> None:
    engine = make_engine(database_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "market_0001")
        rows = [_version_row("a", "2.0", "late", "2026-02-01"),
                _version_row("b", "1.0", "b-first", "2026-01-05"),
                _version_row("a", "1.0", "early", "2026-01-01"),
                _version_row("b", "1.1", "b-second", "2026-01-06")]
        rows.sort(key=lambda row: row["at"])  # inserted in the order they were published
        connection.execute(text(
            "INSERT INTO market_versions (package_id, version, manifest, readme, publisher, "
            "project_id, deprecated, published_at) VALUES (:package, :version, '{}', '', 'u', "
            ":project, false, :at)"), rows)
    migrate(engine)
    with engine.connect() as connection:
        owners = connection.execute(text(
            "SELECT package_id, project_id FROM market_packages ORDER BY package_id")).all()
    engine.dispose()
    assert [tuple(row) for row in owners] == [("a", "early"), ("b", "b-first")]
