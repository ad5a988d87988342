"""The registry table on both databases: publish, the 409 on a second publish of a version
(the unique constraint), listing, deprecating, deleting — on SQLite and on PostgreSQL."""

from pathlib import Path

from sqlmodel import Session, select

from server.core.config import Settings
from server.core.db import make_engine
from server.market.models import MarketVersion
from tests.conftest import make_client


def test_the_registry_round_trips(settings: Settings, database_url: str) -> None:
    with make_client(settings.model_copy(update={"database_url": database_url})) as client:
        project = client.post("/api/projects", json={"name": "db", "template": "empty"}).json()
        Path(project["path"], "m.mnn").write_bytes(b"weights")
        url = f"/api/projects/{project['id']}/publish"
        body = {"id": "db-model", "version": "1.0.0", "files": ["m.mnn", "README.md"]}
        assert client.post(url, json=body).status_code == 201
        assert client.post(url, json=body).json()["code"] == "version_exists"
        assert client.post(url, json={**body, "version": "1.1.0"}).status_code == 201
        [entry] = client.get("/api/market", params={"source": "registry"}).json()
        assert entry["versions"] == ["1.0.0", "1.1.0"]
        card = client.get("/api/market/db-model", params={"source": "registry"}).json()
        assert card["readme"] == Path(project["path"], "README.md").read_text()
        base = "/api/market/db-model/versions/1.0.0"
        assert client.post(f"{base}/deprecate", json={}).json()["deprecated"] is True
        assert client.delete(base).status_code == 204
    engine = make_engine(database_url)
    with Session(engine) as session:
        rows = session.exec(select(MarketVersion)).all()
    engine.dispose()
    assert [(row.version, row.deprecated) for row in rows] == [("1.1.0", False)]
