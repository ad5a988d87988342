"""Migrations are all or nothing: one that fails half-way leaves nothing the next start trips on."""

from pathlib import Path

import pytest
from alembic.ddl.impl import DefaultImpl
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

from server.core.db import make_engine, migrate


def test_a_migration_failing_half_way_leaves_the_database_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'workbench.db'}")
    create_index = DefaultImpl.create_index

    def fail_on_one(impl: DefaultImpl, index, **kw) -> None:
        if index.name == "ix_project_members_user_id":  # late in the team migration
            raise RuntimeError("the disk went away")
        create_index(impl, index, **kw)

    monkeypatch.setattr(DefaultImpl, "create_index", fail_on_one)
    with pytest.raises(RuntimeError, match="the disk went away"):
        migrate(engine)
    assert inspect(engine).get_table_names() == []

    monkeypatch.setattr(DefaultImpl, "create_index", create_index)
    migrate(engine)  # before, this failed for good: "table users already exists"
    migrate(engine)
    fresh = make_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    migrate(fresh)
    assert _schema(engine) == _schema(fresh)
    assert "project_members" in _schema(engine)["tables"]
    engine.dispose()
    fresh.dispose()


def _schema(engine: Engine) -> dict[str, list[str]]:
    with engine.connect() as connection:
        versions = connection.execute(text("SELECT version_num FROM alembic_version"))
        return {"versions": sorted(row[0] for row in versions),
                "tables": sorted(inspect(connection).get_table_names())}
