"""A migrated database (SQLite and PostgreSQL, via ``database_url``) and a few accounts."""

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from server.core.db import make_engine, migrate
from server.users.throttle import LoginThrottle

PASSWORD = "correct horse battery"


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """The empty database of ``database_url`` brought to the newest schema by the migrations."""
    engine = make_engine(database_url)
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def db(engine: Engine) -> Iterator[Session]:
    """A session on ``engine``."""
    with Session(engine) as session:
        yield session


@pytest.fixture
def throttle() -> LoginThrottle:
    """A login throttle at small limits: 3 failures per name, 5 per address in a minute."""
    return LoginThrottle(per_name=3, per_address=5, window=60.0)


@pytest.fixture(autouse=True)
def cheap_argon2(cheap_hashes: None) -> None:
    """Real argon2id at a test-sized cost for every test of this folder (tests/plugin/team.py)."""
