"""The lineage table and its queries on both databases: a conversion's output names the run that
made it and the source it read, on SQLite and on PostgreSQL."""

from pathlib import Path

from sqlmodel import Session, select

from server.core.config import Settings
from server.core.db import make_engine
from server.lineage.models import LineageLink
from tests.conftest import make_client
from tests.fakes.models import conv_net
from tests.plugin.tools import wait_for_run


def test_a_conversion_is_in_the_lineage(settings: Settings, database_url: str) -> None:
    with make_client(settings.model_copy(update={"database_url": database_url})) as client:
        project = client.post("/api/projects", json={"name": "db", "template": "empty"}).json()
        conv_net(Path(project["path"], "net.onnx"))
        started = client.post(f"/api/projects/{project['id']}/tools/convert", json={"model": "net.onnx"})
        assert wait_for_run(client, started.json()["id"])["status"] == "succeeded"
        graph = client.get(f"/api/projects/{project['id']}/lineage", params={"path": "net.mnn"}).json()
    assert [n["kind"] for n in graph["nodes"]] == ["file", "tool_run", "file"]
    assert graph["nodes"][1]["id"] == f"tool_run:{started.json()['id']}"
    assert graph["nodes"][2]["data"]["path"] == "net.onnx" and graph["nodes"][2]["data"]["exists"]
    engine = make_engine(database_url)
    with Session(engine) as session:  # the links are in that very database
        links = session.exec(select(LineageLink)).all()
    engine.dispose()
    assert sorted(link.role for link in links) == ["made", "used"]
