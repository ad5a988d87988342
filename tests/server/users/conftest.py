"""A migrated database (SQLite and PostgreSQL, via ``database_url``) and a few accounts."""

from collections.abc import Iterator

import pytest
from argon2 import PasswordHasher
from sqlalchemy.engine import Engine
from sqlmodel import Session

from server.core.db import make_engine, migrate
from server.users import passwords
from server.users.throttle import LoginThrottle

PASSWORD = "correct horse battery"


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def db(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        yield session


@pytest.fixture
def throttle() -> LoginThrottle:
    return LoginThrottle(per_name=3, per_address=5, window=60.0)


@pytest.fixture(autouse=True)
def cheap_argon2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real argon2id at a test-sized cost: the default takes about a second per hash here."""
    monkeypatch.setattr(
        passwords, "current", passwords.Hasher(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    )
